import EmulatorModel
import EmulatorSupport

/// The data a transaction block reads and changes. Children share the root's storage.
///
/// ```swift
/// try await postRef.runTransactionBlock { current in
///     var post = current.value as? [String: Any] ?? [:]
///     post["starCount"] = (post["starCount"] as? Int ?? 0) + 1
///     current.value = post
///     return .success(withValue: current)
/// }
/// ```
public final class MutableData {
    final class Storage {
        var node: DatabaseNode
        init(_ node: DatabaseNode) { self.node = node }
    }

    let storage: Storage
    let path: [String]

    init(storage: Storage, path: [String]) {
        self.storage = storage
        self.path = path
    }

    private var node: DatabaseNode { storage.node.child(at: DatabasePath(keys: path)) }

    /// The value here (see `DataSnapshot.value`); assign nil to delete.
    public var value: Any? {
        get { node.isEmpty ? nil : DatabaseValue.any(node.json()) }
        set {
            let json = (try? DatabaseValue.json(newValue)) ?? .null
            let priority = node.priority
            var replacement = (try? DatabaseNode(json: json)) ?? .empty
            if let priority { replacement.set(.fromPriority(priority), at: DatabasePath(keys: [".priority"])) }
            storage.node.set(replacement, at: DatabasePath(keys: path))
        }
    }

    public var priority: Any? {
        get { node.priority.map { DatabaseValue.any($0) } }
        set {
            let json = (try? DatabaseValue.json(newValue)) ?? .null
            storage.node.set(.fromPriority(json), at: DatabasePath(keys: path + [".priority"]))
        }
    }

    public var key: String? { path.last }
    public func hasChildren() -> Bool { !node.children.isEmpty }
    public func hasChild(atPath path: String) -> Bool { !node.child(at: DatabasePath(keys: DatabaseReference.split(path))).isEmpty }
    public var childrenCount: Int { node.children.count }
    public var children: [MutableData] { node.children.map { MutableData(storage: storage, path: path + [$0.key]) } }
    public func childData(byAppendingPath path: String) -> MutableData {
        MutableData(storage: storage, path: self.path + DatabaseReference.split(path))
    }
}

/// What a transaction block decides.
public struct TransactionResult {
    let data: MutableData?

    /// Write `value` (usually the `MutableData` the block was given, changed).
    public static func success(withValue value: MutableData) -> TransactionResult { TransactionResult(data: value) }
    /// Give up without writing.
    public static func abort() -> TransactionResult { TransactionResult(data: nil) }
}
