package import EmulatorModel

/// Read access to a namespace's data at one point in time (a snapshot, the inside of a commit,
/// or the data a write would produce). Rules and streams read through it, lazily.
package protocol DatabaseDataSource {
    /// The node at `path` (`.empty` when absent).
    func node(at path: DatabasePath) -> DatabaseNode
    /// About how many bytes the data at `path` holds, counted only until it passes `limit` (the
    /// estimate `writeSizeLimit` compares against).
    func storedBytes(at path: DatabasePath, upTo limit: Int) -> Int
}

extension DatabaseDataSource {
    func storedBytes(at path: DatabasePath, upTo limit: Int) -> Int {
        node(at: path).approximateByteSize
    }
}

/// The data a write would leave, over the data before it: reads are answered by applying the
/// write to just the part asked for.
struct DatabaseOverlaySource: DatabaseDataSource {
    var base: any DatabaseDataSource
    var write: DatabaseWrite

    func node(at path: DatabasePath) -> DatabaseNode {
        let changes = write.changes
        // A change at or above `path` replaces everything there before it: the data before the
        // write is read only when no change covers `path` (a set read back costs no storage read).
        var first = changes.startIndex
        var result = DatabaseNode.empty
        if let covering = changes.lastIndex(where: { $0.0.isAncestor(of: path) }) {
            first = covering
        } else {
            result = base.node(at: path)
        }
        for (location, node) in changes[first...] {
            if let below = path.relative(to: location) {
                result = node.child(at: below)
            } else if let inside = location.relative(to: path) {
                result = result.setting(inside, to: node)
            }
        }
        return result
    }
}

/// A fixed tree (tests, the built-in rules gate).
struct DatabaseTreeSource: DatabaseDataSource {
    var root: DatabaseNode
    func node(at path: DatabasePath) -> DatabaseNode { root.child(at: path) }
}
