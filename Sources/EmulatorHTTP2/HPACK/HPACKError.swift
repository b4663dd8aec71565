/// Why a header block could not be decoded. Any of these is a connection error of type
/// COMPRESSION_ERROR (RFC 7540 §4.3).
package enum HPACKError: Error, Sendable, Equatable {
    case truncated
    case integerOverflow
    case invalidIndex(Int)
    case invalidHuffman
    case tableSizeUpdateTooLarge(Int)
    case tableSizeUpdateMisplaced
    case headerListTooLarge
}
