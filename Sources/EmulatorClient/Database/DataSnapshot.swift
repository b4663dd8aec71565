import EmulatorModel
import EmulatorSupport
public import Foundation

/// The data at a location at one moment.
///
/// ```swift
/// let snapshot = try await ref.child("users/\(uid)/username").getData()
/// let name = snapshot.value as? String
/// ```
public struct DataSnapshot: Sendable {
    public let ref: DatabaseReference
    let node: DatabaseNode
    let params: DatabaseQueryParams

    init(ref: DatabaseReference, node: DatabaseNode, params: DatabaseQueryParams = .init()) {
        self.ref = ref
        self.node = node
        self.params = params
    }

    /// The location's last key (nil at the root).
    public var key: String? { ref.key }

    /// `String`, `Bool`, `Int`, `Double`, `[String: Any]` or `[Any]` (objects whose keys are
    /// mostly consecutive integers); nil when nothing is stored here.
    public var value: Any? {
        node.isEmpty ? nil : DatabaseValue.any(node.json())
    }

    /// The value with priorities (`.priority`, `.value`) included.
    public func valueInExportFormat() -> Any? { node.isEmpty ? nil : DatabaseValue.any(node.json(export: true)) }

    /// The priority (`String` or number), or nil.
    public var priority: Any? { node.priority.map { DatabaseValue.any($0) } }

    public func exists() -> Bool { !node.isEmpty }
    public func hasChildren() -> Bool { !node.children.isEmpty }
    public var childrenCount: Int { node.children.count }

    public func hasChild(_ path: String) -> Bool {
        !node.child(at: DatabasePath(keys: DatabaseReference.split(path))).isEmpty
    }

    public func childSnapshot(forPath path: String) -> DataSnapshot {
        let keys = DatabaseReference.split(path)
        return DataSnapshot(ref: ref.child(path), node: node.child(at: DatabasePath(keys: keys)))
    }

    /// The children in query order (priority, then key, without a query).
    public var children: [DataSnapshot] {
        params.sorted(node.children).map { DataSnapshot(ref: ref.child($0.key), node: $0.node) }
    }

    /// Decodes the value with `JSONDecoder` semantics (keys as properties; missing data throws).
    public func data<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: Data(JSONWriter.encode(node.json())))
    }
}
