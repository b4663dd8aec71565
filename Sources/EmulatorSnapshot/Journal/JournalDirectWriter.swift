import CEmulatorLinux
import Glibc

/// Writes a `.sync` journal's records durably in one system call each: a second descriptor on
/// the journal file opened with `O_DIRECT | O_DSYNC`, so `pwrite` returns only once the data is
/// on stable storage (the kernel issues the cache flush an `fdatasync` would), without copying
/// the records into the page cache and writing them back.
///
/// Direct I/O writes whole aligned blocks: every write starts at the block holding the end of
/// the previous one, so the writer keeps that partial block's bytes and writes them again ahead
/// of the new records (the same bytes; the page cache rewrites that page on every `fdatasync`
/// too), padded with zeros to a block boundary. The padding lands in the journal's zero-filled,
/// synced preallocation, where recovery stops. Where the file system refuses `O_DIRECT`
/// (tmpfs), ``open(path:fault:)`` returns nil and the journal keeps `write` + `fdatasync`.
///
/// Used by one thread at a time (the journal's syncer, or a rotation or close under the journal's
/// lock with no flush in progress).
final class JournalDirectWriter {
    /// Alignment of the buffer, of file offsets and of write lengths.
    static let block = 4096

    private var fd: Int32
    private let path: String
    private let fault: (@Sendable (String) -> Int32?)?
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    /// File offset of `buffer[0]` (a block boundary) and how many bytes there belong to the file.
    private var base = 0
    private var held = 0

    private init(fd: Int32, path: String, fault: (@Sendable (String) -> Int32?)?, buffer: UnsafeMutableRawPointer, capacity: Int) {
        self.fd = fd
        self.path = path
        self.fault = fault
        self.buffer = buffer
        self.capacity = capacity
    }

    /// A writer for the (empty) journal file at `path`, or nil where `O_DIRECT` or `O_DSYNC` is
    /// refused or the buffer cannot be allocated.
    static func open(path: String, fault: (@Sendable (String) -> Int32?)?) -> JournalDirectWriter? {
        let fd = Glibc.open(path, O_WRONLY | O_CLOEXEC | O_DSYNC | CEMU_O_DIRECT)
        guard fd >= 0 else { return nil }
        var raw: UnsafeMutableRawPointer?
        let capacity = 16 * block
        guard posix_memalign(&raw, block, capacity) == 0, let raw else {
            Glibc.close(fd)
            return nil
        }
        return JournalDirectWriter(fd: fd, path: path, fault: fault, buffer: raw, capacity: capacity)
    }

    deinit {
        close()
        free(buffer)
    }

    /// Appends `bytes` at `offset`, the end of everything written before through this writer
    /// (0 for the first write), and returns true once they are durable. Returns false when the
    /// kernel refuses the direct write (`EINVAL`: an alignment it does not accept); nothing of
    /// this write reached the file then and the caller writes it the ordinary way instead.
    func write(_ bytes: [UInt8], at offset: Int) throws(SnapshotError) -> Bool {
        if let code = fault?(path) { throw SnapshotFileSystem.ioError("writing", path, code) }
        precondition(offset == base + held, "journal direct writes must continue where the last one ended")
        let end = held + bytes.count
        let length = (end + Self.block - 1) / Self.block * Self.block
        if length > capacity { grow(to: length) }
        bytes.withUnsafeBytes { raw in
            if let source = raw.baseAddress { (buffer + held).copyMemory(from: source, byteCount: raw.count) }
        }
        (buffer + end).initializeMemory(as: UInt8.self, repeating: 0, count: length - end)
        var done = 0
        while done < length {
            let n = pwrite(fd, buffer + done, length - done, off_t(base + done))
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EINVAL && done == 0 { return false }
                throw SnapshotFileSystem.ioError("writing", path, code)
            }
            // A short write that ends inside a block cannot continue with direct I/O.
            if n % Self.block != 0 && done + n < length { throw SnapshotFileSystem.ioError("writing", path, EIO) }
            done += n
        }
        // Keep the last partial block (the start of the next write).
        let keep = end / Self.block * Self.block
        if keep > 0 { buffer.copyMemory(from: buffer + keep, byteCount: end - keep) }
        base += keep
        held = end - keep
        return true
    }

    private func grow(to length: Int) {
        var capacity = self.capacity
        while capacity < length { capacity *= 2 }
        var raw: UnsafeMutableRawPointer?
        guard posix_memalign(&raw, Self.block, capacity) == 0, let raw else {
            let text = "emulators: cannot allocate the journal's write buffer; stopping.\n"
            var line = Array(text.utf8); _ = Glibc.write(2, &line, line.count)
            exit(74)
        }
        raw.copyMemory(from: buffer, byteCount: held)
        free(buffer)
        buffer = raw
        self.capacity = capacity
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
