#if canImport(Glibc)
import Glibc
#endif
import EmulatorHTTP

/// The request line and header fields of one HTTP/1.1 request, read from a blocking socket.
struct RequestHead {
    var method: String
    var target: String
    var version: String
    var headers: HTTPHeaders

    var contentLength: Int? {
        headers["Content-Length"].flatMap { Int($0.trimmingSpaces()) }
    }

    /// `Connection: close`, or HTTP/1.0 without `keep-alive`.
    var wantsClose: Bool {
        let connection = headers["Connection"]?.lowercased() ?? ""
        if version == "HTTP/1.0" { return !connection.contains("keep-alive") }
        return connection.contains("close")
    }

    /// Reads until the blank line; leftover bytes stay in `buffer`. Nil on EOF or a malformed head.
    static func read(from fd: Int32, buffer: inout [UInt8]) -> RequestHead? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let end = headEnd(buffer) {
                let head = parse(buffer[0..<end])
                buffer.removeFirst(end + 4)
                return head
            }
            guard buffer.count < 64 * 1024 else { return nil }
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func parse(_ bytes: ArraySlice<UInt8>) -> RequestHead? {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        guard let requestLine = lines.popFirst() else { return nil }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3 else { return nil }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.add(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces())
        }
        return RequestHead(method: String(parts[0]), target: String(parts[1]), version: String(parts[2]), headers: headers)
    }
}
