import EmulatorTestSupport
import Testing
import Glibc
@testable import EmulatorSnapshot

@Suite struct BulkFileTests {
    /// Sizes around the direct-I/O block and the staging chunk: the file must hold exactly the
    /// bytes appended (no padding left behind), however they were split into appends, whether
    /// it is written direct throughout (limit 0), switches to direct after its first chunks, or
    /// stays buffered.
    @Test(arguments: [0, 1, 4095, 4096, 4097, BulkFile.chunk - 1, BulkFile.chunk, BulkFile.chunk + 4097, 3 * BulkFile.chunk + 5],
          [0, 2 * BulkFile.chunk, BulkFile.bufferedLimit])
    func fileHoldsExactlyTheAppendedBytes(size: Int, bufferedLimit: Int) throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/output-0"
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let file = try BulkFile(path: path, fileSystem: SnapshotFileSystem(), bufferedLimit: bufferedLimit)
        var at = 0
        var step = 1
        while at < bytes.count {
            let end = min(bytes.count, at + step)
            try file.append(Array(bytes[at..<end]))
            at = end
            step = step * 7 + 3
        }
        #expect(try file.finish() == size)
        #expect(try SnapshotFileSystem().read(path) == bytes)
    }

    /// A file below the buffered limit stays in the page cache, so importing it right after the
    /// export reads no disk.
    @Test func aSmallFileStaysInThePageCache() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/output-0"
        let size = 3 * BulkFile.chunk + 5
        let file = try BulkFile(path: path, fileSystem: SnapshotFileSystem())
        try file.append([UInt8](repeating: 5, count: size))
        try file.finish()
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        let pages = (size + 4095) / 4096
        guard let map = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else {
            Issue.record("mmap failed")
            return
        }
        defer { munmap(map, size) }
        var resident = [UInt8](repeating: 0, count: pages)
        #expect(mincore(map, size, &resident) == 0)
        #expect(resident.filter { $0 & 1 != 0 }.count == pages)
    }

    @Test func writeFaultNamesTheFile() throws {
        let dir = TemporaryDirectory()
        let fs = SnapshotFileSystem(writeFault: { _ in ENOSPC })
        let file = try BulkFile(path: dir.path + "/output-0", fileSystem: fs)
        try file.append([1, 2, 3])
        #expect(throws: SnapshotError.self) { try file.finish() }
        do { try file.finish() } catch { #expect(error.file == dir.path + "/output-0") }
    }

    /// A failing write on the writer thread (whole chunks) surfaces in `append` or `finish`.
    @Test func writeFaultOnTheWriterThreadIsReported() throws {
        let dir = TemporaryDirectory()
        let fs = SnapshotFileSystem(writeFault: { _ in EIO })
        let file = try BulkFile(path: dir.path + "/output-0", fileSystem: fs)
        let chunk = [UInt8](repeating: 7, count: BulkFile.chunk)
        #expect(throws: SnapshotError.self) {
            for _ in 0..<4 { try file.append(chunk) }
            try file.finish()
        }
    }

    @Test func refusesAnExistingFile() throws {
        let dir = TemporaryDirectory()
        try dir.write("output-0", [9])
        #expect(throws: SnapshotError.self) { try BulkFile(path: dir.path + "/output-0", fileSystem: SnapshotFileSystem()) }
    }
}
