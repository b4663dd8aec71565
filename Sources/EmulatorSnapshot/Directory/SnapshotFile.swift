import Glibc

/// An open file being written by a snapshot or the journal. Not shared between threads.
package final class SnapshotFile {
    private var fd: Int32
    package let path: String
    private let fault: (@Sendable (String) -> Int32?)?
    /// Bytes written so far through this handle.
    package private(set) var written = 0

    init(fd: Int32, path: String, fault: (@Sendable (String) -> Int32?)?) {
        self.fd = fd
        self.path = path
        self.fault = fault
    }

    /// Writes all of `bytes` (retrying short writes), or throws naming the file and the errno.
    package func write(_ bytes: [UInt8]) throws(SnapshotError) {
        if let code = fault?(path) { throw SnapshotFileSystem.ioError("writing", path, code) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress.map { $0 + done }, raw.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SnapshotFileSystem.ioError("writing", path, errno)
            }
            done += n
        }
        written += done
    }

    /// Writes all of `bytes` at `offset` (`pwrite`, retrying short writes), leaving the file
    /// position alone; throws naming the file and the errno.
    package func write(_ bytes: [UInt8], at offset: Int) throws(SnapshotError) {
        if let code = fault?(path) { throw SnapshotFileSystem.ioError("writing", path, code) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                Glibc.pwrite(fd, raw.baseAddress.map { $0 + done }, raw.count - done, off_t(offset + done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw SnapshotFileSystem.ioError("writing", path, errno)
            }
            done += n
        }
        written += done
    }

    /// Cuts the file to `size` bytes.
    package func truncate(to size: Int) throws(SnapshotError) {
        if ftruncate(fd, off_t(size)) != 0 { throw SnapshotFileSystem.ioError("truncating", path, errno) }
    }

    /// Flushes the file's data to disk (`fdatasync`).
    package func sync() throws(SnapshotError) {
        if fdatasync(fd) != 0 { throw SnapshotFileSystem.ioError("syncing", path, errno) }
    }

    package func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}
