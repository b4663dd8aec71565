import Testing
@testable import EmulatorSnapshot

@Suite struct LevelDBLogTests {
    @Test(arguments: [
        ("123456789", UInt32(0xE306_9283)),
        ("", UInt32(0)),
        ("a", UInt32(0xC1D0_4330)),
    ])
    func crc32cKnownVectors(text: String, expected: UInt32) {
        #expect(CRC32C.checksum(Array(text.utf8)) == expected)
    }

    @Test func crc32cOfZerosAndSlicingMatchesBytewise() {
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var byteAtATime: UInt32 = 0
        for b in data { byteAtATime = [b].withUnsafeBytes { CRC32C.update(byteAtATime, $0) } }
        #expect(byteAtATime == CRC32C.checksum(data))
        // The hardware path and the portable path agree at every length and alignment.
        for start in 0..<9 {
            for length in [0, 1, 7, 8, 9, 63, 500] {
                let slice = Array(data[start..<(start + length)])
                let software = slice.withUnsafeBytes { CRC32C.updateSoftware(0, $0) }
                #expect(software == CRC32C.checksum(slice))
            }
        }
    }

    @Test func maskRoundTrips() {
        for value: UInt32 in [0, 1, 0xDEAD_BEEF, .max] { #expect(CRC32C.unmask(CRC32C.mask(value)) == value) }
        #expect(CRC32C.mask(0) == 0xA282_EAD8)
    }

    @Test func fullRecordHeaderBytes() {
        let bytes = LevelDBLogWriter.encode([[0x33]])
        let crc = CRC32C.mask(CRC32C.checksum([1, 0x33]))
        #expect(bytes == [
            UInt8(crc & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8((crc >> 16) & 0xFF), UInt8(crc >> 24), 1, 0, 1, 0x33,
        ])
    }

    @Test func largeRecordIsFragmentedAcrossBlocks() throws {
        let record = (0..<70_000).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = LevelDBLogWriter.encode([record])
        // FIRST fills block 0, MIDDLE fills block 1, LAST holds the rest.
        #expect(bytes[6] == 2)
        #expect(Int(bytes[4]) | Int(bytes[5]) << 8 == 32_768 - 7)
        #expect(bytes[32_768 + 6] == 3)
        #expect(bytes[65_536 + 6] == 4)
        #expect(bytes.count == 70_000 + 3 * 7)
        var reader = LevelDBLogReader(bytes: bytes, file: "f")
        #expect(try reader.readAll() == [record])
    }

    @Test func blockTrailerShorterThanHeaderIsZeroFilled() throws {
        // First record leaves exactly 3 bytes in the block.
        let first = [UInt8](repeating: 7, count: 32_768 - 7 - 3)
        let bytes = LevelDBLogWriter.encode([first, [1, 2]])
        #expect(Array(bytes[(32_768 - 3)..<32_768]) == [0, 0, 0])
        #expect(bytes[32_768 + 6] == 1)
        var reader = LevelDBLogReader(bytes: bytes, file: "f")
        #expect(try reader.readAll() == [first, [1, 2]])
    }

    @Test func recordsSpanningChunksAreCarriedAcross() throws {
        let records = (0..<5).map { i in [UInt8](repeating: UInt8(i), count: 40_000) }
        let bytes = LevelDBLogWriter.encode(records)
        var read: [[UInt8]] = []
        var carry: [UInt8]?
        var carryStart = 0
        var base = 0
        while base < bytes.count {
            let end = min(base + LevelDBLog.blockSize, bytes.count)
            var reader = LevelDBLogReader(
                bytes: Array(bytes[base..<end]), file: "f", baseOffset: base, isFinal: end == bytes.count,
                carry: carry, carryStart: carryStart)
            while let record = try reader.next() { read.append(record) }
            carry = reader.carry
            carryStart = reader.carryStart
            base = end
        }
        #expect(read == records)
    }

    @Test func damageInALaterChunkReportsTheFileOffset() {
        var bytes = LevelDBLogWriter.encode([[UInt8](repeating: 1, count: 40_000), [2, 2]])
        let second = 32_768 + 7 + (40_000 - (32_768 - 7))  // header of the second record
        bytes[second + 8] ^= 0xFF
        var reader = LevelDBLogReader(bytes: Array(bytes[32_768...]), file: "f", baseOffset: 32_768, isFinal: true,
                                      carry: Array(repeating: 1, count: 32_768 - 7), carryStart: 0)
        #expect(throws: SnapshotError(.corrupted, "checksum mismatch", file: "f", offset: second)) {
            while try reader.next() != nil {}
        }
    }

    @Test func emptyRecordsRoundTrip() throws {
        var reader = LevelDBLogReader(bytes: LevelDBLogWriter.encode([[], [9], []]), file: "f")
        #expect(try reader.readAll() == [[], [9], []])
    }

    @Test func appendingWriterKeepsBlockAlignment() throws {
        var first = LevelDBLogWriter()
        first.append([UInt8](repeating: 1, count: 40_000))
        var file = first.bytes
        var second = LevelDBLogWriter(fileSize: file.count)
        second.append([UInt8](repeating: 2, count: 30_000))
        file += second.bytes
        #expect(file == LevelDBLogWriter.encode([[UInt8](repeating: 1, count: 40_000), [UInt8](repeating: 2, count: 30_000)]))
    }

    @Test func checksumMismatchNamesFileAndOffset() {
        var bytes = LevelDBLogWriter.encode([[1, 2, 3], [4, 5, 6], [7]])
        bytes[10 + 7 + 1] ^= 0xFF  // a data byte of the second record (header at offset 10)
        var reader = LevelDBLogReader(bytes: bytes, file: "output-0")
        #expect(throws: SnapshotError(.corrupted, "checksum mismatch", file: "output-0", offset: 10)) {
            _ = try reader.readAll()
        }
        #expect(!reader.lastErrorWasTruncation)
    }

    @Test func truncatedTailIsReportedAsTruncation() {
        let bytes = LevelDBLogWriter.encode([[1, 2, 3], [4, 5, 6]])
        var reader = LevelDBLogReader(bytes: Array(bytes.dropLast(2)), file: "j")
        #expect(throws: SnapshotError.self) { _ = try reader.readAll() }
        #expect(reader.lastErrorWasTruncation)
        #expect(reader.validEnd == 10)
    }

    @Test func unknownTypeAndOrphanFragmentsAreRejected() {
        var bad = LevelDBLogWriter.encode([[1]])
        bad[6] = 9
        var r1 = LevelDBLogReader(bytes: bad, file: "f")
        #expect(throws: SnapshotError.self) { _ = try r1.readAll() }

        // A LAST fragment with a valid checksum but no FIRST.
        var w = ProtoLessLog()
        w.fragment(type: 4, [1, 2])
        var r2 = LevelDBLogReader(bytes: w.bytes, file: "f")
        #expect(throws: SnapshotError(.corrupted, "LAST fragment without a FIRST", file: "f", offset: 0)) { _ = try r2.readAll() }
    }
}

/// Builds raw fragments with valid checksums (to test sequencing errors).
struct ProtoLessLog {
    var bytes: [UInt8] = []
    mutating func fragment(type: UInt8, _ data: [UInt8]) {
        let crc = CRC32C.mask(CRC32C.checksum([type] + data))
        bytes += [UInt8(crc & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8((crc >> 16) & 0xFF), UInt8(crc >> 24)]
        bytes += [UInt8(data.count & 0xFF), UInt8(data.count >> 8), type] + data
    }
}
