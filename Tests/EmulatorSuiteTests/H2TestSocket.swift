#if canImport(Glibc)
import Glibc
#endif
import EmulatorHTTP2
import Testing

/// A raw loopback TCP socket speaking HTTP/2 frames, read with a bounded wait, so a test can send
/// a call and look for its answer later.
final class H2TestSocket {
    private let fd: Int32
    private var parser = HTTP2FrameParser(maxFrameSize: 1 << 24)
    private var decoder = HPACKDecoder()
    /// Frames read so far.
    private(set) var frames: [HTTP2Frame] = []

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
    }

    deinit { if !aborted { close(fd) } }

    private var aborted = false

    /// Closes the connection now.
    func abort() {
        guard !aborted else { return }
        aborted = true
        close(fd)
    }

    func send(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        try #require(sent == bytes.count)
    }

    /// Reads until stream `stream` ended or `milliseconds` passed; returns its trailers (nil if
    /// it did not end in time).
    func trailers(of stream: UInt32, within milliseconds: Int) throws -> [HeaderField]? {
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: Int((milliseconds % 1000) * 1000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let found = try ended(stream) { return found }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            parser.append(Array(buffer[0..<n]))
            while let f = try parser.next() { frames.append(f) }
        }
    }

    /// Reads until stream `stream` carried `count` gRPC messages or `milliseconds` passed; returns
    /// the messages seen so far on it.
    func messages(of stream: UInt32, count: Int, within milliseconds: Int) throws -> [[UInt8]] {
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: Int((milliseconds % 1000) * 1000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            var deframer = GRPCMessageDeframer()
            var found: [[UInt8]] = []
            for case .data(stream, let payload, _, _) in frames {
                deframer.append(payload)
                while let m = try deframer.next() { found.append(m) }
            }
            if found.count >= count { return found }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return found }
            parser.append(Array(buffer[0..<n]))
            while let f = try parser.next() { frames.append(f) }
        }
    }

    private var decodedUpTo = 0
    private var ends: [UInt32: [HeaderField]] = [:]

    private func ended(_ stream: UInt32) throws -> [HeaderField]? {
        while decodedUpTo < frames.count {
            if case .headers(let s, let block, let end, _) = frames[decodedUpTo] {
                let fields = try decoder.decode(block)
                if end { ends[s] = fields }
            }
            decodedUpTo += 1
        }
        return ends[stream]
    }
}
