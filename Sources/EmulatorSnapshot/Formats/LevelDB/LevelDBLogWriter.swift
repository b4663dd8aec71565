/// Appends records in the LevelDB log format to an in-memory buffer that the caller drains.
///
/// ```swift
/// var log = LevelDBLogWriter()
/// log.append([0x33])
/// let fileBytes = log.bytes   // 7-byte header + 1 byte
/// ```
package struct LevelDBLogWriter: Sendable {
    /// Bytes produced since the last `drain()`.
    package private(set) var bytes: [UInt8] = []
    /// The position in the current 32 KiB block, counted over everything ever written.
    private var blockOffset: Int

    /// - Parameter fileSize: the size of the file being appended to (0 for a new file), so
    ///   block boundaries stay aligned when appending to an existing log.
    package init(fileSize: Int = 0) {
        blockOffset = fileSize % LevelDBLog.blockSize
    }

    /// Appends one record (possibly empty), split into fragments at block boundaries.
    package mutating func append(_ record: some Collection<UInt8>) {
        if let done: Void = record.withContiguousStorageIfAvailable({ appendBuffer(UnsafeRawBufferPointer($0)) }) {
            return done
        }
        Array(record).withUnsafeBytes { appendBuffer($0) }
    }

    private mutating func appendBuffer(_ data: UnsafeRawBufferPointer) {
        var start = 0
        var isFirst = true
        repeat {
            let leftover = LevelDBLog.blockSize - blockOffset
            if leftover < LevelDBLog.headerSize {
                // Too small for a header: zero-fill the trailer and start a new block.
                bytes.append(contentsOf: repeatElement(0, count: leftover))
                blockOffset = 0
            }
            let available = LevelDBLog.blockSize - blockOffset - LevelDBLog.headerSize
            let length = min(data.count - start, available)
            let isLast = start + length == data.count
            let type: LevelDBLog.RecordType = isFirst ? (isLast ? .full : .first) : (isLast ? .last : .middle)
            emit(type, UnsafeRawBufferPointer(rebasing: data[start..<(start + length)]))
            start += length
            isFirst = false
        } while start < data.count
    }

    private mutating func emit(_ type: LevelDBLog.RecordType, _ fragment: UnsafeRawBufferPointer) {
        var typeByte = type.rawValue
        var crc = withUnsafeBytes(of: &typeByte) { CRC32C.update(0, $0) }
        crc = CRC32C.mask(CRC32C.update(crc, fragment))
        bytes.append(UInt8(truncatingIfNeeded: crc))
        bytes.append(UInt8(truncatingIfNeeded: crc >> 8))
        bytes.append(UInt8(truncatingIfNeeded: crc >> 16))
        bytes.append(UInt8(truncatingIfNeeded: crc >> 24))
        bytes.append(UInt8(truncatingIfNeeded: fragment.count))
        bytes.append(UInt8(truncatingIfNeeded: fragment.count >> 8))
        bytes.append(type.rawValue)
        bytes.append(contentsOf: fragment)
        blockOffset += LevelDBLog.headerSize + fragment.count
    }

    /// Empties the buffer, keeping its capacity (after the caller wrote `bytes` out).
    package mutating func clearBuffer() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Returns the bytes produced so far and empties the buffer (block alignment is kept).
    package mutating func drain() -> [UInt8] {
        let out = bytes
        bytes.removeAll(keepingCapacity: true)
        return out
    }

    /// Encodes `records` as a complete log file.
    package static func encode(_ records: [[UInt8]]) -> [UInt8] {
        var writer = LevelDBLogWriter()
        for record in records { writer.append(record) }
        return writer.bytes
    }
}
