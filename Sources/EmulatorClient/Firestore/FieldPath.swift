import EmulatorModel

/// A path to a field; segments may contain dots.
///
/// ```swift
/// FieldPath(["address", "zip.code"])
/// FieldPath.documentID()
/// ```
public struct FieldPath: Sendable, Hashable {
    public let segments: [String]
    public init(_ segments: [String]) { self.segments = segments }
    /// The special path that sorts and filters by document name.
    public static func documentID() -> FieldPath { FieldPath(["__name__"]) }

    var model: ModelFieldPath { ModelFieldPath(segments) }

    /// A dotted string (`"a.b"`) as a path.
    static func dotted(_ text: String) -> ModelFieldPath {
        ModelFieldPath(text.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }
}
