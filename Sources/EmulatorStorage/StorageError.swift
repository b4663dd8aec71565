/// An error from the storage engine. The store is unchanged whenever one is thrown from a commit.
package struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong; extensible.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let name: String
        package init(_ name: String) { self.name = name }
        package var description: String { name }

        /// A `.exists` or `.updateTime` precondition found no live entry.
        package static let notFound = Code("notFound")
        /// A `.missing` precondition found a live entry.
        package static let alreadyExists = Code("alreadyExists")
        /// An `.updateTime` or `.value` precondition did not match.
        package static let failedPrecondition = Code("failedPrecondition")
        /// A value is larger than the namespace's `maxValueBytes`.
        package static let valueTooLarge = Code("valueTooLarge")
        /// A key has more segments than the namespace's `maxSegments`.
        package static let keyTooDeep = Code("keyTooDeep")
        /// A key segment is longer than the namespace's `maxSegmentBytes`.
        package static let segmentTooLong = Code("segmentTooLong")
        /// A key segment is not valid UTF-8.
        package static let invalidUTF8 = Code("invalidUTF8")
        /// A key is malformed (empty segment, the root where a document is needed, bad encoding).
        package static let invalidKey = Code("invalidKey")
        /// A read time is older than the retained history.
        package static let historyExpired = Code("historyExpired")
        /// An index id is unknown, or an index scan was asked of a non-head snapshot.
        package static let indexUnavailable = Code("indexUnavailable")
        /// A caller-defined abort thrown from inside a commit body.
        package static let aborted = Code("aborted")
    }

    package var code: Code
    package var message: String
    /// The key the error is about, if any.
    package var key: StorageKey?

    package init(_ code: Code, _ message: String, key: StorageKey? = nil) {
        self.code = code
        self.message = message
        self.key = key
    }

    package var description: String {
        "\(code): \(message)" + (key.map { " (\($0))" } ?? "")
    }
}
