/// Why a wire commit was refused inside the serialized section.
enum DatabaseWireCommitFailure: Error {
    case permissionDenied
    /// A transaction's hash did not match the current value.
    case datastale

    var result: DatabaseWireResult {
        switch self {
        case .permissionDenied: .permissionDenied
        case .datastale: .failure("datastale", "Transaction hash does not match")
        }
    }
}
