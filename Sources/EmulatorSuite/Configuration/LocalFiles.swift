#if canImport(Glibc)
import Glibc
#endif

/// The few file-system questions configuration asks, answered with libc (no Foundation).
package enum LocalFiles {
    /// The whole file, or nil when it cannot be opened or read.
    package static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }

    /// Writes `bytes` to `path` (created or truncated). Returns false on any failure.
    @discardableResult
    package static func write(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    package enum Kind: Sendable { case missing, file, directory, other }

    package static func kind(_ path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    /// Names in a directory, without `.` and `..`; empty when it cannot be read.
    package static func list(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The process's working directory.
    package static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` made absolute against `base` and normalised (`.`, `..` and doubled slashes removed).
    package static func absolute(_ path: String, relativeTo base: String) -> String {
        let joined = path.hasPrefix("/") ? path : base + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The directory part of an absolute path.
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// The temporary directory the hub locator lives in: `$TMPDIR`, else `/tmp`.
    package static func temporaryDirectory() -> String {
        if let value = getenv("TMPDIR"), let text = String(validatingCString: value), !text.isEmpty {
            return text.count > 1 && text.hasSuffix("/") ? String(text.dropLast()) : text
        }
        return "/tmp"
    }

    /// `mkdir -p`: creates `path` and missing parents. True if the directory exists afterwards.
    @discardableResult
    package static func makeDirectories(_ path: String) -> Bool {
        var current = ""
        for part in path.split(separator: "/") {
            current += "/" + part
            if kind(current) == .missing { mkdir(current, 0o755) }
        }
        return kind(path) == .directory
    }
}
