extension DatabaseFailure {
    /// The status of a wire-protocol answer `{"s": status, "d": message}`.
    var wireStatus: String {
        switch self {
        case .invalid: "invalid_data"
        case .writeTooBig: "too_big"
        case .permissionDenied: "permission_denied"
        case .invalidToken: "invalid_token"
        case .conditionFailed: "datastale"
        case .unsupported: "failed"
        }
    }
}
