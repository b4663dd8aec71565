package import EmulatorModel

/// What one commit changes in a namespace: a set (PUT, POST, DELETE) of one location, or a
/// multi-path update (PATCH) of several locations below a base path. Values are resolved nodes.
package enum DatabaseWrite: Sendable {
    case set(DatabasePath, DatabaseNode)
    case update(base: DatabasePath, [(path: DatabasePath, node: DatabaseNode)])

    /// Every (absolute location, new node) pair, in application order.
    package var changes: [(DatabasePath, DatabaseNode)] {
        switch self {
        case .set(let path, let node): [(path, node)]
        case .update(let base, let changes): changes.map { (base.appending($0.path), $0.node) }
        }
    }

    /// The first location this write replaces (the root for an empty update), without building
    /// every location.
    package var firstLocation: DatabasePath {
        switch self {
        case .set(let path, _): path
        case .update(let base, let changes): changes.first.map { base.appending($0.path) } ?? .root
        }
    }

    /// Every absolute location this write replaces.
    package var locations: [DatabasePath] {
        switch self {
        case .set(let path, _): [path]
        case .update(let base, let changes): changes.map { base.appending($0.path) }
        }
    }
}
