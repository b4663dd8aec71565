import Testing
import Glibc
@testable import EmulatorSnapshot

@Suite struct BulkFileTests {
    /// Sizes around the direct-I/O block and the staging chunk: the file must hold exactly the
    /// bytes appended (no padding left behind), however they were split into appends.
    @Test(arguments: [0, 1, 4095, 4096, 4097, BulkFile.chunk - 1, BulkFile.chunk, BulkFile.chunk + 4097, 3 * BulkFile.chunk + 5])
    func fileHoldsExactlyTheAppendedBytes(size: Int) throws {
        let dir = TestDirectory()
        let path = dir.path + "/output-0"
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let file = try BulkFile(path: path, fileSystem: SnapshotFileSystem())
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

    @Test func writeFaultNamesTheFile() throws {
        let dir = TestDirectory()
        let fs = SnapshotFileSystem(writeFault: { _ in ENOSPC })
        let file = try BulkFile(path: dir.path + "/output-0", fileSystem: fs)
        try file.append([1, 2, 3])
        #expect(throws: SnapshotError.self) { try file.finish() }
        do { try file.finish() } catch { #expect(error.file == dir.path + "/output-0") }
    }

    /// A failing write on the writer thread (whole chunks) surfaces in `append` or `finish`.
    @Test func writeFaultOnTheWriterThreadIsReported() throws {
        let dir = TestDirectory()
        let fs = SnapshotFileSystem(writeFault: { _ in EIO })
        let file = try BulkFile(path: dir.path + "/output-0", fileSystem: fs)
        let chunk = [UInt8](repeating: 7, count: BulkFile.chunk)
        #expect(throws: SnapshotError.self) {
            for _ in 0..<4 { try file.append(chunk) }
            try file.finish()
        }
    }

    @Test func refusesAnExistingFile() throws {
        let dir = TestDirectory()
        try dir.write("output-0", [9])
        #expect(throws: SnapshotError.self) { try BulkFile(path: dir.path + "/output-0", fileSystem: SnapshotFileSystem()) }
    }
}
