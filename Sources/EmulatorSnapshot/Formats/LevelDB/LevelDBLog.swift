/// Constants of the LevelDB log format (the `output-N` and `*.overall_export_metadata` files of
/// a Firestore export, and our journal).
///
/// A file is a sequence of 32 KiB blocks. Each record fragment has a 7-byte header: the masked
/// CRC-32C of the type byte and the data (4 bytes, little-endian), the data length (2 bytes,
/// little-endian) and the type. A record that does not fit the rest of a block is split into
/// FIRST, MIDDLE… and LAST fragments; fewer than 7 bytes left in a block are zero-filled.
package enum LevelDBLog {
    package static let blockSize = 32_768
    package static let headerSize = 7

    /// The fragment type byte.
    package enum RecordType: UInt8, Sendable {
        case full = 1
        case first = 2
        case middle = 3
        case last = 4
    }
}
