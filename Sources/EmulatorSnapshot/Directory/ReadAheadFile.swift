import CEmulatorLinux
import EmulatorSupport
import Glibc
import Synchronization

/// Reads a file front to back in fixed-size chunks on a reader thread that stays up to `depth`
/// chunks ahead of the caller, so disk reads overlap the decoding of earlier chunks.
///
/// An import reads each `output-N` once, sequentially, and decodes it chunk by chunk. From a
/// cold page cache (after a reboot, or right after an `O_DIRECT` export) a plain `pread` per
/// chunk stalls the decoder on every chunk; here the next chunks are already being read while
/// the current one is decoded. At most `depth` buffers exist (one being read, the rest ready or
/// with the caller); a buffer handed back with `recycle` is refilled in place. The file is
/// opened with `POSIX_FADV_SEQUENTIAL` so the kernel's own readahead grows too.
///
/// A file of `directFrom` bytes or more is read with direct I/O (`O_DIRECT`, into one aligned
/// buffer, then copied): a cold 1 GB import through the page cache cost the importing process
/// about 0.8 s more system time (page-cache pages allocated, filled and copied) than a warm
/// one. Where direct I/O is refused, reads fall back to the page cache.
///
/// Errors keep the snapshot guarantees: a failed read throws `.io` naming the file and the
/// offset of the chunk, a file that shrank while being read throws `.corrupted` with the offset
/// where it ended; chunks before the failure are still delivered first, in order.
///
/// ```swift
/// let file = try ReadAheadFile(path: path, chunkSize: 4 << 20, depth: 3, fileSystem: fs)
/// defer { file.close() }
/// while let chunk = try file.next() {
///     decode(chunk.bytes, at: chunk.offset, final: chunk.isFinal)
///     file.recycle(chunk.bytes)
/// }
/// ```
package final class ReadAheadFile {
    /// One piece of the file, in file order.
    package struct Chunk: Sendable {
        package var bytes: [UInt8]
        /// Where `bytes` starts in the file.
        package var offset: Int
        /// True for the piece that ends at the end of the file.
        package var isFinal: Bool
    }

    /// Alignment of direct reads (offsets, sizes, buffer).
    static let block = 4096
    /// Files at least this large are read with direct I/O.
    package static let directFrom = 64 << 20

    package let path: String
    /// The file's size when it was opened.
    package let size: Int
    private let shared: Shared
    private var reader: PosixThread.Joinable?
    /// Bytes delivered by `next()` so far.
    private var delivered = 0
    /// Chunks taken from the reader by `next()` and not yet recycled.
    private var outstanding = 0

    /// What the caller and the reader thread share. Safe to share without further locking:
    /// `state` is behind its Mutex, the semaphores are thread-safe, and every other property is
    /// immutable after `init` (the descriptor is closed only after the reader has been joined).
    private final class Shared: @unchecked Sendable {
        struct State: Sendable {
            /// Filled chunks (or the error that ended reading), oldest first.
            var ready: [Result<Chunk, SnapshotError>] = []
            /// Buffers the caller handed back, to be refilled.
            var spare: [[UInt8]] = []
            /// Set by `close()`: the reader stops at its next turn.
            var stopped = false
        }

        let fd: Int32
        /// A second descriptor opened with `O_DIRECT` (-1 when not used or refused), and its
        /// aligned staging buffer of `chunkSize` bytes. Used by the reader thread only.
        var directFD: Int32 = -1
        var staging: UnsafeMutableRawPointer?
        let path: String
        let size: Int
        let chunkSize: Int
        let fault: (@Sendable (String, Int) -> Int32?)?
        let state = Mutex(State())
        /// Counts chunks in `ready`.
        let filled = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        /// Counts buffers the reader may fill (starts at `depth`).
        let free = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

        init(fd: Int32, path: String, size: Int, chunkSize: Int, depth: Int, fault: (@Sendable (String, Int) -> Int32?)?) {
            self.fd = fd
            self.path = path
            self.size = size
            self.chunkSize = chunkSize
            self.fault = fault
            sem_init(filled, 0, 0)
            sem_init(free, 0, UInt32(depth))
        }

        deinit {
            sem_destroy(filled)
            sem_destroy(free)
            filled.deallocate()
            free.deallocate()
            Glibc.close(fd)
            if directFD >= 0 { Glibc.close(directFD) }
            if let staging { Glibc.free(staging) }
        }

        /// Opens the direct descriptor and its buffer; false (and nothing kept) when refused.
        func openDirect() -> Bool {
            guard chunkSize % ReadAheadFile.block == 0 else { return false }
            let direct = open(path, O_RDONLY | O_CLOEXEC | CEMU_O_DIRECT)
            guard direct >= 0 else { return false }
            guard let buffer = aligned_alloc(ReadAheadFile.block, chunkSize) else {
                Glibc.close(direct)
                return false
            }
            directFD = direct
            staging = buffer
            return true
        }

        /// Reads `length` bytes at `offset` with direct I/O into `raw`; nil when the file system
        /// refused it (the caller reads through the page cache instead), else the bytes read
        /// (short only at a failure, recorded in `failure`).
        func readDirect(into raw: UnsafeMutableRawBufferPointer, at offset: Int, length: Int, failure: inout SnapshotError?) -> Int? {
            guard directFD >= 0, let staging, let target = raw.baseAddress else { return nil }
            let aligned = (length + ReadAheadFile.block - 1) / ReadAheadFile.block * ReadAheadFile.block
            var done = 0
            while done < length {
                let n = pread(directFD, staging + done, aligned - done, off_t(offset + done))
                if n < 0 {
                    if errno == EINTR { continue }
                    if errno == EINVAL && done == 0 {
                        Glibc.close(directFD)
                        directFD = -1
                        return nil
                    }
                    failure = readError(errno, offset + done)
                    break
                }
                if n == 0 {
                    failure = SnapshotError(.corrupted, "file shrank while being read", file: path, offset: offset + done)
                    break
                }
                done += n
                // A direct read may stop at an unaligned end of file only; anything else unaligned
                // cannot be continued with O_DIRECT.
                if done < length && done % ReadAheadFile.block != 0 {
                    failure = SnapshotError(.corrupted, "file shrank while being read", file: path, offset: offset + done)
                    break
                }
            }
            let copied = min(done, length)
            target.copyMemory(from: staging, byteCount: copied)
            return copied
        }

        /// The reader thread's loop: fill a buffer, queue it, until the end, an error or `stopped`.
        func run() {
            var offset = 0
            while offset < size {
                while sem_wait(free) != 0 {}
                let taken: [UInt8]? = state.withLock { state in state.stopped ? nil : (state.spare.popLast() ?? []) }
                guard var buffer = taken else { return }
                let length = min(chunkSize, size - offset)
                let result = fill(&buffer, at: offset, length: length)
                let failed: Bool
                switch result {
                case .success:
                    state.withLock { $0.ready.append(.success(Chunk(bytes: buffer, offset: offset, isFinal: offset + length >= size))) }
                    failed = false
                case .failure(let error):
                    state.withLock { $0.ready.append(.failure(error)) }
                    failed = true
                }
                sem_post(filled)
                if failed { return }
                offset += length
            }
        }

        /// Reads `length` bytes at `offset` into `buffer` (reusing its storage when it is
        /// unshared), retrying short reads.
        func fill(_ buffer: inout [UInt8], at offset: Int, length: Int) -> Result<Void, SnapshotError> {
            if let code = fault?(path, offset) { return .failure(readError(code, offset)) }
            var failure: SnapshotError?
            func read(into raw: UnsafeMutableRawBufferPointer) -> Int {
                if let done = readDirect(into: raw, at: offset, length: length, failure: &failure) { return done }
                var done = 0
                while done < length {
                    let n = pread(fd, raw.baseAddress.map { $0 + done }, length - done, off_t(offset + done))
                    if n < 0 {
                        if errno == EINTR { continue }
                        failure = readError(errno, offset + done)
                        return done
                    }
                    if n == 0 {
                        failure = SnapshotError(.corrupted, "file shrank while being read", file: path, offset: offset + done)
                        return done
                    }
                    done += n
                }
                return done
            }
            if buffer.count >= length {
                if buffer.count > length { buffer.removeLast(buffer.count - length) }
                _ = buffer.withUnsafeMutableBytes { read(into: $0) }
            } else {
                // A fresh buffer is read straight into, never zero-filled first.
                buffer = [UInt8](unsafeUninitializedCapacity: length) { storage, initialized in
                    initialized = read(into: UnsafeMutableRawBufferPointer(storage))
                }
            }
            if let failure { return .failure(failure) }
            return .success(())
        }

        func readError(_ code: Int32, _ offset: Int) -> SnapshotError {
            SnapshotError(.io, "reading failed: \(SnapshotFileSystem.errnoText(code))", file: path, offset: offset)
        }
    }

    /// Opens `path` and starts reading ahead. `depth` (at least 2) buffers of `chunkSize` bytes
    /// at most exist at once.
    package init(
        path: String, chunkSize: Int, depth: Int = 3, directFrom: Int = ReadAheadFile.directFrom, fileSystem: SnapshotFileSystem
    ) throws(SnapshotError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw SnapshotError(.notFound, "file does not exist", file: path) }
            throw SnapshotFileSystem.ioError("opening", path, code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw SnapshotFileSystem.ioError("stat", path, code)
        }
        size = Int(info.st_size)
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        shared = Shared(
            fd: fd, path: path, size: size, chunkSize: max(chunkSize, 1), depth: max(depth, 2), fault: fileSystem.readFault)
        guard size > 0 else { return }
        if size >= directFrom { _ = shared.openDirect() }
        let shared = shared
        reader = PosixThread.start { shared.run() }
    }

    /// The next chunk in file order, or nil after the last one. Hand each chunk's bytes back with
    /// `recycle` once done with them (the reader waits for a free buffer).
    package func next() throws(SnapshotError) -> Chunk? {
        guard delivered < size else { return nil }
        let result: Result<Chunk, SnapshotError>
        if reader != nil {
            while sem_wait(shared.filled) != 0 {}
            result = shared.state.withLock { $0.ready.removeFirst() }
        } else {
            // No reader thread could be started: read here, one chunk at a time.
            var buffer = shared.state.withLock { $0.spare.popLast() } ?? []
            let length = min(shared.chunkSize, size - delivered)
            switch shared.fill(&buffer, at: delivered, length: length) {
            case .success: result = .success(Chunk(bytes: buffer, offset: delivered, isFinal: delivered + length >= size))
            case .failure(let error): result = .failure(error)
            }
        }
        switch result {
        case .success(let chunk):
            delivered += chunk.bytes.count
            outstanding += 1
            return chunk
        case .failure(let error):
            delivered = size
            throw error
        }
    }

    /// Hands a chunk's buffer back to be refilled. Drop every other reference to it first, or the
    /// reader has to copy it.
    package func recycle(_ bytes: consuming [UInt8]) {
        guard outstanding > 0 else { return }
        outstanding -= 1
        let buffer = bytes
        shared.state.withLock { $0.spare.append(buffer) }
        if reader != nil { sem_post(shared.free) }
    }

    /// Stops the reader thread (if still reading) and releases the buffers. Safe to call twice.
    package func close() {
        guard let thread = reader else { return }
        shared.state.withLock { $0.stopped = true }
        sem_post(shared.free)
        thread.join()
        reader = nil
        shared.state.withLock { state in
            state.ready.removeAll()
            state.spare.removeAll()
        }
    }

    deinit { close() }
}
