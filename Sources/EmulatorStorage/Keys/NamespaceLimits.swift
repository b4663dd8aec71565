/// Limits a namespace enforces on every write; a violation throws and leaves the store untouched.
///
/// ```swift
/// engine.configure("database/demo", limits: NamespaceLimits(maxValueBytes: 10 << 20, maxSegments: 32, maxSegmentBytes: 768))
/// ```
package struct NamespaceLimits: Sendable, Equatable {
    /// Largest value in bytes (Firestore: 1 MiB per document).
    package var maxValueBytes: Int
    /// Most segments in a key (RTDB: 32).
    package var maxSegments: Int
    /// Longest key segment in UTF-8 bytes (RTDB: 768; Firestore: 1,500).
    package var maxSegmentBytes: Int

    package init(maxValueBytes: Int = .max, maxSegments: Int = .max, maxSegmentBytes: Int = .max) {
        self.maxValueBytes = maxValueBytes
        self.maxSegments = maxSegments
        self.maxSegmentBytes = maxSegmentBytes
    }

    package static let unlimited = NamespaceLimits()

    func check(_ key: StorageKey, valueCount: Int?) throws(StorageError) {
        if let valueCount, valueCount > maxValueBytes {
            throw StorageError(.valueTooLarge, "value of \(valueCount) bytes exceeds \(maxValueBytes)", key: key)
        }
        guard maxSegments != .max || maxSegmentBytes != .max else { return }
        var segments = 0
        var length = 0
        var escaped = false
        for byte in key.encoded {
            if escaped { escaped = false; length += 1; continue }
            if byte == 1 { escaped = true; continue }
            if byte == 0 {
                segments += 1
                if length > maxSegmentBytes {
                    throw StorageError(.segmentTooLong, "key segment of \(length) bytes exceeds \(maxSegmentBytes)", key: key)
                }
                length = 0
            } else {
                length += 1
            }
        }
        if segments > maxSegments {
            throw StorageError(.keyTooDeep, "key of \(segments) segments exceeds \(maxSegments)", key: key)
        }
    }
}
