import Glibc

/// A fresh directory under /tmp for one test, removed with everything in it when the value goes.
///
/// ```swift
/// let directory = TemporaryDirectory()
/// let rules = directory.write("firestore.rules", "rules_version = '2';")
/// try directory.write("live/journal-1", bytes)
/// ```
package final class TemporaryDirectory {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    package let path: String

    package init() {
        var template = Array("/tmp/emulators-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
            return String(cString: base)
        }
        path = made ?? "/tmp/emulators-test-fallback-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        if made == nil { _ = try? Self.makeDirectories(path) }
    }

    deinit { Self.removeTree(path) }

    /// Writes `text` to `name` (below this directory, parents made), returning the file's path.
    @discardableResult
    package func write(_ name: String, _ text: String) -> String {
        let file = path + "/" + name
        do {
            try write(name, Array(text.utf8))
        } catch {
            print("TemporaryDirectory: \(error)")
        }
        return file
    }

    /// Replaces `relative` (below this directory, parents made) with `bytes`.
    package func write(_ relative: String, _ bytes: [UInt8]) throws {
        let file = path + "/" + relative
        if let slash = file.utf8.lastIndex(of: UInt8(ascii: "/")) {
            try Self.makeDirectories(String(file[..<slash]))
        }
        Self.removeTree(file)
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot create \(file): errno \(errno)") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot write \(file): errno \(errno)")
            }
            offset += written
        }
    }

    /// The bytes of `relative`, below this directory.
    package func read(_ relative: String) throws -> [UInt8] {
        let file = path + "/" + relative
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "cannot open \(file): errno \(errno)") }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot read \(file): errno \(errno)")
            }
            if count == 0 { return out }
            out.append(contentsOf: chunk[..<count])
        }
    }

    /// The names in the directory `relative` (below this directory; "" is this directory itself),
    /// without `.` and `..`, in no particular order; empty when it cannot be read.
    package func list(_ relative: String = "") -> [String] {
        Self.names(in: relative.isEmpty ? path : path + "/" + relative)
    }

    /// Every `journal-*` file of the `--data-dir` directory `relative`, concatenated in name order.
    package func journalBytes(_ relative: String = "live") -> [UInt8] {
        list(relative).filter { $0.hasPrefix("journal-") }.sorted().flatMap { (try? read(relative + "/" + $0)) ?? [] }
    }

    private static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static func makeDirectories(_ directory: String) throws {
        var prefix = ""
        for part in directory.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw Failure(description: "cannot make \(prefix): errno \(errno)")
            }
        }
    }

    /// Removes `target` and, for a directory, everything below it; symbolic links are not followed.
    private static func removeTree(_ target: String) {
        var info = stat()
        guard lstat(target, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            for name in names(in: target) { removeTree(target + "/" + name) }
            rmdir(target)
        } else {
            unlink(target)
        }
    }
}
