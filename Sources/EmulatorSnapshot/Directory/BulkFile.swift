import CEmulatorLinux
import EmulatorSupport
import Glibc

/// A new file written once, sequentially and in bulk (the entity records of an export): its
/// first `bufferedLimit` bytes through the page cache, the rest with direct I/O (`O_DIRECT`)
/// where the file system allows it.
///
/// Buffered writes copy every byte into freshly allocated page-cache pages and `fdatasync` then
/// writes them out; on the benchmark machine that copy cost more than the disk (1 GB: 2.2 s
/// buffered + 0.5 s sync, against 0.7 s direct). Past `bufferedLimit` bytes are staged in one
/// reused, page-aligned buffer and written from it in whole blocks; the tail is padded to a
/// block, written, and the file truncated to its real size. A small export gains nothing from
/// direct I/O and stays in the page cache, so importing it right after exporting reads no disk.
/// Where `O_DIRECT` is refused (tmpfs, an odd block size) the file uses ordinary writes
/// throughout. `finish()` syncs either way.
///
/// ```swift
/// let file = try BulkFile(path: dir + "/output-0", fileSystem: fs)
/// try file.append(recordBytes)
/// let size = try file.finish()   // written, truncated, synced, closed
/// ```
package final class BulkFile {
    /// Alignment of the buffers, of file offsets and of write sizes in direct mode.
    static let block = 4096
    /// Bytes staged before a write.
    static let chunk = 1 << 20
    /// Bytes written through the page cache before switching to direct I/O (a whole number of
    /// chunks, so the switch falls on an aligned offset).
    package static let bufferedLimit = 64 << 20

    package let path: String
    /// What the writer thread shares with this object.
    private let shared: Shared
    /// The buffer being filled (0 or 1), and how much of it is.
    private var current = 0
    private var staged = 0
    private var writer: PosixThread.Joinable?
    /// Bytes handed to `append` so far (the file's final size).
    package private(set) var size = 0

    /// State the caller and the writer thread share. Safe without a lock because every hand-over
    /// is ordered by a semaphore: the caller writes a job and a buffer before `sem_post(filled)`,
    /// the thread reads them after `sem_wait(filled)`; the thread writes `failure`/`direct` and
    /// releases the buffer before `sem_post(free)`, the caller reads them after `sem_wait(free)`
    /// or after joining the thread. The caller never touches a buffer the thread is writing.
    private final class Shared: @unchecked Sendable {
        let path: String
        var fd: Int32
        let fault: (@Sendable (String) -> Int32?)?
        var direct: Bool
        /// The file offset from which writes go direct (when the file system allows it).
        let directFrom: Int
        /// Bytes written so far (by the writer thread, then by `finish`).
        var offset = 0
        /// Set once the switch to direct I/O was attempted.
        var switched = false
        let buffers: [UnsafeMutableRawPointer]
        /// Jobs by sequence number (at most three outstanding): a byte count to write from
        /// buffer `sequence % 2`, or -1 to stop.
        var jobs = [Int](repeating: 0, count: 4)
        let filled = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        let free = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        /// The first write error (errno); later writes are skipped.
        var failure: Int32 = 0

        init(
            path: String, fd: Int32, fault: (@Sendable (String) -> Int32?)?, directFrom: Int, buffers: [UnsafeMutableRawPointer]
        ) {
            self.path = path
            self.fd = fd
            self.fault = fault
            self.direct = false
            self.directFrom = directFrom
            self.buffers = buffers
            sem_init(filled, 0, 0)
            sem_init(free, 0, 1)
        }

        deinit {
            sem_destroy(filled)
            sem_destroy(free)
            filled.deallocate()
            free.deallocate()
            for buffer in buffers { Glibc.free(buffer) }
            if fd >= 0 { Glibc.close(fd) }
        }

        /// The writer thread's loop.
        func run() {
            var sequence = 0
            while true {
                while sem_wait(filled) != 0 {}
                let count = jobs[sequence % 4]
                if count < 0 { return }
                if failure == 0 { failure = write(buffers[sequence % 2], count: count) }
                sequence += 1
                sem_post(free)
            }
        }

        /// Writes `count` bytes from `buffer` (retrying short writes); a direct write the file
        /// system refuses (EINVAL) is retried as an ordinary one. Returns 0 or the errno.
        /// A whole chunk (`mayGoDirect`) past `directFrom` switches the file to direct I/O first.
        func write(_ buffer: UnsafeMutableRawPointer, count: Int, mayGoDirect: Bool = true) -> Int32 {
            if let code = fault?(path) { return code }
            if mayGoDirect && !switched && offset >= directFrom && offset % BulkFile.block == 0 {
                // Past the buffered part: switch to direct I/O (once; stays buffered if refused).
                switched = true
                let flags = fcntl(fd, F_GETFL)
                direct = flags >= 0 && fcntl(fd, F_SETFL, flags | CEMU_O_DIRECT) == 0
            }
            var done = 0
            while done < count {
                let n = Glibc.write(fd, buffer + done, count - done)
                if n < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    if code == EINVAL && direct {
                        let flags = fcntl(fd, F_GETFL)
                        if flags >= 0 && fcntl(fd, F_SETFL, flags & ~CEMU_O_DIRECT) == 0 {
                            direct = false
                            continue
                        }
                    }
                    return code
                }
                done += n
            }
            offset += done
            return 0
        }
    }

    /// Jobs handed to the writer thread so far.
    private var posted = 0

    /// Creates the file (failing if it exists). Its first `bufferedLimit` bytes (rounded down to
    /// whole chunks) are written through the page cache; 0 makes every write direct.
    package init(path: String, fileSystem: SnapshotFileSystem, bufferedLimit: Int = BulkFile.bufferedLimit) throws(SnapshotError) {
        self.path = path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SnapshotFileSystem.ioError("creating", path, errno) }
        guard let first = aligned_alloc(Self.block, Self.chunk), let second = aligned_alloc(Self.block, Self.chunk) else {
            Glibc.close(fd)
            unlink(path)
            throw SnapshotError(.io, "out of memory for a write buffer", file: path)
        }
        shared = Shared(
            path: path, fd: fd, fault: fileSystem.writeFault, directFrom: max(0, bufferedLimit) / Self.chunk * Self.chunk,
            buffers: [first, second])
    }

    /// Appends `bytes`; each full buffer goes to the writer thread.
    package func append(_ bytes: UnsafeRawBufferPointer) throws(SnapshotError) {
        var from = 0
        while from < bytes.count {
            let n = min(bytes.count - from, Self.chunk - staged)
            if let base = bytes.baseAddress { (shared.buffers[current] + staged).copyMemory(from: base + from, byteCount: n) }
            staged += n
            from += n
            size += n
            if staged == Self.chunk { try handOver() }
        }
    }

    /// Appends `bytes`.
    package func append(_ bytes: [UInt8]) throws(SnapshotError) {
        let failure = bytes.withUnsafeBytes { raw -> SnapshotError? in
            do throws(SnapshotError) { try append(raw) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Gives the full current buffer to the writer thread (started on first use) and waits for the other one.
    private func handOver() throws(SnapshotError) {
        if writer == nil {
            let shared = shared
            guard let thread = PosixThread.start({ shared.run() }) else {
                // No thread: write here.
                let code = shared.write(shared.buffers[current], count: staged)
                staged = 0
                if code != 0 { throw SnapshotFileSystem.ioError("writing", path, code) }
                return
            }
            writer = thread
        }
        shared.jobs[posted % 4] = staged
        posted += 1
        sem_post(shared.filled)
        while sem_wait(shared.free) != 0 {}
        current ^= 1
        staged = 0
        if shared.failure != 0 { throw SnapshotFileSystem.ioError("writing", path, shared.failure) }
    }

    /// Waits for the writer thread to finish its jobs and stops it.
    private func stopWriter() {
        guard let thread = writer else { return }
        shared.jobs[posted % 4] = -1
        sem_post(shared.filled)
        thread.join()
        writer = nil
    }

    /// Writes what is staged, sets the file to its exact size, syncs and closes it; returns the size.
    @discardableResult
    package func finish() throws(SnapshotError) -> Int {
        stopWriter()
        if shared.failure != 0 { throw SnapshotFileSystem.ioError("writing", path, shared.failure) }
        if staged > 0 {
            let buffer = shared.buffers[current]
            let padded = shared.direct ? (staged + Self.block - 1) / Self.block * Self.block : staged
            if padded > staged { (buffer + staged).initializeMemory(as: UInt8.self, repeating: 0, count: padded - staged) }
            let code = shared.write(buffer, count: padded, mayGoDirect: false)
            if code != 0 { throw SnapshotFileSystem.ioError("writing", path, code) }
            if padded > staged, ftruncate(shared.fd, off_t(size)) != 0 { throw SnapshotFileSystem.ioError("truncating", path, errno) }
            staged = 0
        }
        if fdatasync(shared.fd) != 0 { throw SnapshotFileSystem.ioError("syncing", path, errno) }
        close()
        return size
    }

    package func close() {
        stopWriter()
        if shared.fd >= 0 { Glibc.close(shared.fd) }
        shared.fd = -1
    }

    deinit { close() }
}
