import Glibc

/// The file operations a snapshot needs, over POSIX calls, with an optional fault hook so tests
/// can simulate a full disk (or any errno) on a chosen write.
///
/// ```swift
/// var fs = SnapshotFileSystem()
/// fs.writeFault = { path in path.hasSuffix("output-0") ? ENOSPC : nil }
/// ```
package struct SnapshotFileSystem: Sendable {
    /// Called before every write; a non-nil errno makes that write fail as the OS would.
    package var writeFault: (@Sendable (_ path: String) -> Int32?)?
    /// Called before each chunk `readChunks` reads; a non-nil errno makes that read fail.
    package var readFault: (@Sendable (_ path: String, _ offset: Int) -> Int32?)?
    /// Whether a `.sync` journal writes its records with `O_DIRECT | O_DSYNC` where the file
    /// system allows it (one `pwrite` per group commit) instead of `pwrite` + `fdatasync`.
    /// Tests turn it off to cover the fallback.
    package var directJournalWrites = true

    package init(
        writeFault: (@Sendable (_ path: String) -> Int32?)? = nil,
        readFault: (@Sendable (_ path: String, _ offset: Int) -> Int32?)? = nil
    ) {
        self.writeFault = writeFault
        self.readFault = readFault
    }

    static func errnoText(_ code: Int32) -> String {
        switch code {
        case ENOSPC: return "no space left on device"
        case EACCES: return "permission denied"
        case EROFS: return "read-only file system"
        case EDQUOT: return "disk quota exceeded"
        default:
            guard let text = strerror(code) else { return "errno \(code)" }
            return String(cString: text).lowercased()
        }
    }

    static func ioError(_ what: String, _ path: String, _ code: Int32) -> SnapshotError {
        SnapshotError(.io, "\(what) failed: \(errnoText(code))", file: path)
    }

    // MARK: Queries

    package func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    package func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    package func fileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// The entries of a directory (without `.` and `..`), sorted bytewise.
    package func list(_ path: String) throws(SnapshotError) -> [String] {
        guard let dir = opendir(path) else { throw Self.ioError("reading the directory", path, errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// The whole file.
    package func read(_ path: String) throws(SnapshotError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw SnapshotError(.notFound, "file does not exist", file: path) }
            throw Self.ioError("opening", path, code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Self.ioError("stat", path, errno) }
        // Files under /proc report size 0: read them in chunks until end of file.
        var bytes = [UInt8](repeating: 0, count: info.st_size > 0 ? Int(info.st_size) : 65_536)
        let growable = info.st_size == 0
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { raw in
                Glibc.read(fd, raw.baseAddress.map { $0 + done }, raw.count - done)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw Self.ioError("reading", path, errno)
            }
            if n == 0 { break }
            done += n
            if growable && done == bytes.count { bytes.append(contentsOf: repeatElement(0, count: bytes.count)) }
        }
        if done < bytes.count { bytes.removeLast(bytes.count - done) }
        return bytes
    }

    /// Reads `path` in chunks of `chunkSize` bytes (the last may be shorter), calling `body`
    /// with each chunk, its offset in the file and whether it is the last one (an empty file
    /// gives one empty, final chunk). A reader thread reads up to `depth - 1` chunks ahead while
    /// `body` works (`ReadAheadFile`), so disk reads overlap decoding.
    package func readChunks(
        _ path: String, chunkSize: Int, depth: Int = 3, directFrom: Int = ReadAheadFile.directFrom,
        _ body: ([UInt8], Int, Bool) throws(SnapshotError) -> Void
    ) throws(SnapshotError) {
        let file = try ReadAheadFile(path: path, chunkSize: chunkSize, depth: depth, directFrom: directFrom, fileSystem: self)
        defer { file.close() }
        if file.size == 0 { return try body([], 0, true) }
        while var chunk = try file.next() {
            try body(chunk.bytes, chunk.offset, chunk.isFinal)
            // Hand the only reference back, so the reader refills the buffer in place.
            var bytes: [UInt8] = []
            swap(&bytes, &chunk.bytes)
            file.recycle(bytes)
        }
    }

    /// The absolute form of `path`, resolved against the current directory, with `.`/`..` and
    /// repeated slashes removed lexically (symbolic links are resolved by `canonical`).
    package func absolute(_ path: String) -> String {
        var base = path.hasPrefix("/") ? "" : currentDirectory()
        base += "/" + path
        var parts: [Substring] = []
        for part in base.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `realpath` of the longest existing prefix of `absolute(path)`, plus the rest.
    package func canonical(_ path: String) -> String {
        let full = absolute(path)
        var head = full
        var tail: [String] = []
        while head != "/" {
            if let resolved = realpath(head, nil) {
                defer { free(resolved) }
                let base = String(cString: resolved)
                return tail.isEmpty ? base : (base == "/" ? "" : base) + "/" + tail.reversed().joined(separator: "/")
            }
            let (parent, name) = Self.split(head)
            tail.append(name)
            head = parent
        }
        return full
    }

    package func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// ("/a/b", "c") for "/a/b/c".
    package static func split(_ path: String) -> (parent: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let parent = String(path[..<slash])
        return (parent.isEmpty ? "/" : parent, String(path[path.index(after: slash)...]))
    }

    // MARK: Changes

    package func makeDirectory(_ path: String) throws(SnapshotError) {
        if mkdir(path, 0o755) != 0 { throw Self.ioError("creating the directory", path, errno) }
    }

    /// Creates `path` and any missing parents.
    package func makeDirectories(_ path: String) throws(SnapshotError) {
        if isDirectory(path) { return }
        let (parent, _) = Self.split(path)
        if parent != path && parent != "/" && !isDirectory(parent) { try makeDirectories(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw Self.ioError("creating the directory", path, errno) }
    }

    package func rename(_ from: String, _ to: String) throws(SnapshotError) {
        if Glibc.rename(from, to) != 0 { throw Self.ioError("renaming to \(to)", from, errno) }
    }

    /// Flushes a directory's entries (new names, renames) to disk.
    package func syncDirectory(_ path: String) throws(SnapshotError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.ioError("opening the directory", path, errno) }
        defer { close(fd) }
        if fsync(fd) != 0 && errno != EINVAL { throw Self.ioError("syncing the directory", path, errno) }
    }

    /// Removes a file or a directory tree; missing paths are fine.
    package func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in (try? list(path)) ?? [] { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// Creates a new file (failing if it exists) for writing.
    package func create(_ path: String) throws(SnapshotError) -> SnapshotFile {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.ioError("creating", path, errno) }
        return SnapshotFile(fd: fd, path: path, fault: writeFault)
    }

    /// Cuts an existing file to `size` bytes and syncs it (`fsync`: the new size is metadata).
    package func truncateFile(_ path: String, to size: Int) throws(SnapshotError) {
        if let code = writeFault?(path) { throw Self.ioError("truncating", path, code) }
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.ioError("opening", path, errno) }
        defer { close(fd) }
        if ftruncate(fd, off_t(size)) != 0 { throw Self.ioError("truncating", path, errno) }
        if fsync(fd) != 0 { throw Self.ioError("syncing", path, errno) }
    }

    /// Writes a whole new file and syncs it.
    package func writeFile(_ path: String, _ bytes: [UInt8]) throws(SnapshotError) {
        let file = try create(path)
        defer { file.close() }
        try file.write(bytes)
        try file.sync()
    }
}
