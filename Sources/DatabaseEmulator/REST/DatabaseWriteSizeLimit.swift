/// The `writeSizeLimit` of a REST write: how long the write may be estimated to take.
///
/// Production estimates each write's cost and refuses (400, "Data to write exceeds the maximum
/// size that can be modified with a single request.") one expected to take longer than the
/// target: tiny 1 s, small 10 s, medium 30 s, large 60 s; unlimited allows anything up to the
/// 256 MB request limit. The estimator is not public; here the cost is the bytes the write touches
/// (the new data plus the data it replaces or deletes) at the documented sustained write rate of
/// 64 MB per minute, so `tiny` allows about 1 MB and `large` 64 MB.
///
/// ```swift
/// DatabaseWriteSizeLimit(rawValue: "tiny")?.byteBudget   // 1_118_481
/// ```
enum DatabaseWriteSizeLimit: String {
    case tiny, small, medium, large, unlimited

    /// Bytes per second of the estimate (64 MiB per minute, the "bytes written" limit).
    static let bytesPerSecond = 64 * 1024 * 1024 / 60

    /// The most bytes a write may touch; nil when unlimited.
    var byteBudget: Int? {
        switch self {
        case .tiny: Self.bytesPerSecond
        case .small: 10 * Self.bytesPerSecond
        case .medium: 30 * Self.bytesPerSecond
        case .large: 60 * Self.bytesPerSecond
        case .unlimited: nil
        }
    }
}
