import EmulatorModel

/// Finds overlapping paths in a multi-path update (a path and its ancestor, or a path twice) as
/// they are decoded, in time linear in the keys: each path is looked up among the earlier paths'
/// prefixes and its own prefixes among the earlier paths, instead of being compared with every
/// earlier path.
///
/// ```swift
/// var check = DatabaseOverlapCheck()
/// check.insert(DatabasePath(keys: ["a", "b"]))   // nil
/// check.insert(DatabasePath(keys: ["a"]))        // /a/b: the earlier path it overlaps
/// ```
struct DatabaseOverlapCheck {
    private var paths: [DatabasePath] = []
    private var seen: Set<DatabasePath> = []
    /// Every prefix of every earlier path, the paths themselves included.
    private var prefixes: Set<DatabasePath> = []

    /// Records `path`; returns the first earlier path (in insertion order) that is `path`, its
    /// ancestor or its descendant, or nil when there is none.
    mutating func insert(_ path: DatabasePath) -> DatabasePath? {
        var overlaps = prefixes.contains(path)
        var prefix = path
        while !overlaps {
            if seen.contains(prefix) { overlaps = true }
            guard let parent = prefix.parent else { break }
            prefix = parent
        }
        if overlaps {
            return paths.first { $0.isAncestor(of: path) || path.isAncestor(of: $0) }
        }
        paths.append(path)
        seen.insert(path)
        prefix = path
        while prefixes.insert(prefix).inserted, let parent = prefix.parent { prefix = parent }
        return nil
    }
}
