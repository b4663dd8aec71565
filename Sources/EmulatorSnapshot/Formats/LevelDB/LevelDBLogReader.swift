/// Reads records from a LevelDB log held in memory, checking every fragment.
///
/// Any damage (checksum mismatch, a length running past its block, an unknown type, a fragment
/// out of sequence, a file that ends inside a record) throws a `SnapshotError` with the file
/// name and the offset of the bad fragment header. `SnapshotError.offset` lets a caller decide
/// what to do with a torn tail (the journal drops it; an export refuses it).
///
/// ```swift
/// var reader = LevelDBLogReader(bytes: fileBytes, file: "output-0")
/// while let record = try reader.next() { … }
/// ```
package struct LevelDBLogReader {
    package let bytes: [UInt8]
    package let file: String
    /// The offset of the next fragment header.
    package private(set) var position = 0
    /// The offset where the last complete record ended (everything before it is valid).
    package private(set) var validEnd = 0
    /// True when the last error was the file ending inside a record or header (a torn tail),
    /// as opposed to damaged bytes followed by more data.
    package private(set) var lastErrorWasTruncation = false
    /// For preallocated logs (the live journal): an all-zero fragment header followed only by
    /// zeros to the end of the file is the end of the log, and damage followed only by zeros
    /// counts as a torn tail. Zeros followed by any other byte are still damage.
    package var zeroTailEndsLog = false

    /// Where `bytes` starts in the file (a multiple of the block size when reading in chunks).
    package let baseOffset: Int
    /// False for a chunk that more of the file follows: a record still open at its end is kept
    /// in `carry` for the reader of the next chunk instead of being an error.
    package let isFinal: Bool
    /// A record whose FIRST (and MIDDLE) fragments were in earlier chunks, and its header offset.
    package private(set) var carry: [UInt8]?
    package private(set) var carryStart = 0

    package init(bytes: [UInt8], file: String, baseOffset: Int = 0, isFinal: Bool = true,
                 carry: [UInt8]? = nil, carryStart: Int = 0) {
        self.bytes = bytes
        self.file = file
        self.baseOffset = baseOffset
        self.isFinal = isFinal
        self.carry = carry
        self.carryStart = carryStart - baseOffset
    }

    /// `position` counted from the start of the file.
    package var filePosition: Int { baseOffset + position }

    /// Where the record `next()` returns starts in the file (in an earlier chunk when carried).
    package var nextRecordStart: Int { carry != nil ? baseOffset + carryStart : baseOffset + position }

    /// The next record, or nil at a clean end of file.
    package mutating func next() throws(SnapshotError) -> [UInt8]? {
        var record: [UInt8] = carry ?? []
        var inRecord = carry != nil
        var recordStart = carry != nil ? carryStart : position
        carry = nil
        while true {
            let blockLeft = LevelDBLog.blockSize - position % LevelDBLog.blockSize
            if blockLeft < LevelDBLog.headerSize {
                // Trailer: skip to the next block.
                if position + blockLeft > bytes.count {
                    if inRecord { throw truncated(recordStart, "file ends inside a record") }
                    position = bytes.count
                    validEnd = position
                    return nil
                }
                position += blockLeft
                continue
            }
            if position == bytes.count {
                if inRecord && !isFinal {
                    carry = record
                    carryStart = baseOffset + recordStart
                    return nil
                }
                if inRecord { throw truncated(recordStart, "file ends inside a record") }
                validEnd = position
                return nil
            }
            if zeroTailEndsLog && onlyZeros(from: position) {
                if inRecord { throw truncated(recordStart, "log ends inside a record") }
                validEnd = position
                position = bytes.count
                return nil
            }
            if position + LevelDBLog.headerSize > bytes.count {
                throw truncated(position, "file ends inside a record header")
            }
            let header = position
            let storedCRC = UInt32(bytes[header]) | UInt32(bytes[header + 1]) << 8
                | UInt32(bytes[header + 2]) << 16 | UInt32(bytes[header + 3]) << 24
            let length = Int(bytes[header + 4]) | Int(bytes[header + 5]) << 8
            let typeByte = bytes[header + 6]
            let dataStart = header + LevelDBLog.headerSize
            if length > blockLeft - LevelDBLog.headerSize {
                throw corrupted(header, "record length \(length) runs past the end of its 32 KiB block")
            }
            if dataStart + length > bytes.count {
                throw truncated(header, "file ends inside a record (\(length) bytes announced)")
            }
            let crc = bytes.withUnsafeBytes { raw in
                CRC32C.mask(CRC32C.update(CRC32C.update(0, UnsafeRawBufferPointer(rebasing: raw[(header + 6)..<(header + 7)])),
                                          UnsafeRawBufferPointer(rebasing: raw[dataStart..<(dataStart + length)])))
            }
            guard let type = LevelDBLog.RecordType(rawValue: typeByte) else {
                throw corrupted(header, "unknown record type \(typeByte)")
            }
            if crc != storedCRC {
                throw corrupted(header, "checksum mismatch")
            }
            position = dataStart + length
            switch type {
            case .full:
                if inRecord { throw corrupted(header, "FULL record inside a fragmented record") }
                validEnd = position
                return Array(bytes[dataStart..<position])
            case .first:
                if inRecord { throw corrupted(header, "FIRST fragment inside a fragmented record") }
                inRecord = true
                recordStart = header
                record.append(contentsOf: bytes[dataStart..<position])
            case .middle:
                if !inRecord { throw corrupted(header, "MIDDLE fragment without a FIRST") }
                record.append(contentsOf: bytes[dataStart..<position])
            case .last:
                if !inRecord { throw corrupted(header, "LAST fragment without a FIRST") }
                record.append(contentsOf: bytes[dataStart..<position])
                validEnd = position
                return record
            }
        }
    }

    /// Every record of the file.
    package mutating func readAll() throws(SnapshotError) -> [[UInt8]] {
        var records: [[UInt8]] = []
        while let record = try next() { records.append(record) }
        return records
    }

    private mutating func corrupted(_ offset: Int, _ message: String) -> SnapshotError {
        // A damaged fragment that ends exactly at the end of the file is what an interrupted
        // append leaves behind; damage followed by more data is not.
        let length = offset + 6 < bytes.count ? Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 : 0
        let end = offset + LevelDBLog.headerSize + length
        lastErrorWasTruncation = isFinal && (end >= bytes.count || zeroTailEndsLog && onlyZeros(from: end))
        return SnapshotError(.corrupted, message, file: file, offset: baseOffset + offset)
    }

    /// True when every byte from `start` to the end of `bytes` is zero.
    private func onlyZeros(from start: Int) -> Bool {
        var index = start
        while index < bytes.count {
            if bytes[index] != 0 { return false }
            index += 1
        }
        return true
    }

    private mutating func truncated(_ offset: Int, _ message: String) -> SnapshotError {
        lastErrorWasTruncation = isFinal
        return SnapshotError(.corrupted, message, file: file, offset: baseOffset + offset)
    }
}
