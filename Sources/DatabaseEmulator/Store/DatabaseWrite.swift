package import EmulatorModel

/// What one commit changes in a namespace: a set (PUT, POST, DELETE) of one location, or a
/// multi-path update (PATCH) of several locations below a base path. Values are resolved nodes.
package enum DatabaseWrite: Sendable {
    case set(DatabasePath, DatabaseNode)
    case update(base: DatabasePath, [(path: DatabasePath, node: DatabaseNode)])
    /// An update of direct children of `base` (distinct keys), each replaced by the value its
    /// stored entry bytes hold (`DatabaseStoredBytes`: a leaf or a packed object, never empty).
    /// The bulk `PATCH` form: stored without building nodes; `expanded` gives the `.update`.
    case children(base: DatabasePath, keys: [String], stored: [[UInt8]])

    /// The same write with nodes: `.children` as the `.update` it stands for, others unchanged.
    package var expanded: DatabaseWrite {
        guard case .children(let base, let keys, let stored) = self else { return self }
        return .update(
            base: base,
            zip(keys, stored).map { key, bytes in
                (DatabasePath(keys: [key]), DatabaseStorageMapping.storedNode(bytes) ?? .empty)
            })
    }

    /// Every (absolute location, new node) pair, in application order.
    package var changes: [(DatabasePath, DatabaseNode)] {
        switch self {
        case .set(let path, let node): [(path, node)]
        case .update(let base, let changes): changes.map { (base.appending($0.path), $0.node) }
        case .children: expanded.changes
        }
    }

    /// The first location this write replaces (the root for an empty update), without building
    /// every location.
    package var firstLocation: DatabasePath {
        switch self {
        case .set(let path, _): path
        case .update(let base, let changes): changes.first.map { base.appending($0.path) } ?? .root
        case .children(let base, let keys, _): keys.first.map { base.child($0) } ?? .root
        }
    }

    /// Every absolute location this write replaces.
    package var locations: [DatabasePath] {
        switch self {
        case .set(let path, _): [path]
        case .update(let base, let changes): changes.map { base.appending($0.path) }
        case .children(let base, let keys, _): keys.map { base.child($0) }
        }
    }
}
