/// Limits the HTTP/1.1 parser enforces, each with the status it answers when exceeded.
package struct HTTP1Limits: Sendable, Hashable {
    /// Request line plus header fields (and, separately, chunked trailers): over this → 431.
    package var maxHeadBytes: Int
    /// Number of header fields: over this → 431.
    package var maxHeaderCount: Int
    /// Decoded body size: over this → 413 (checked against Content-Length before reading the body).
    package var maxBodyBytes: Int

    package init(maxHeadBytes: Int = 64 * 1024, maxHeaderCount: Int = 128, maxBodyBytes: Int = 32 * 1024 * 1024) {
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}
