import EmulatorModel
import EmulatorStorage
import EmulatorSupport

/// One active listen of a wire connection: a location, a query (`.all` for a default listen),
/// and for filtered listens the client's tag and the last view sent.
struct DatabaseWireListen: Sendable {
    var path: DatabasePath
    var query: DatabaseQueryParams
    /// The query object as the client sent it (echoed in a `c` revocation); nil for default listens.
    var wireQuery: JSONValue?
    /// The client's tag: every push for this listen carries it.
    var tag: Int64?
    /// The view last sent (filtered listens only; pushes are diffs against it).
    var lastView: DatabaseNode
    /// The commit time the first data was read at: only later commits are pushed.
    var openedAt: CommitTime

    /// Whether the listen selects part of its location (so its data is a query result).
    var isFiltered: Bool { !query.isIdentity }

    /// Whether an unlisten for (`path`, `query`, `tag`) names this listen.
    func matches(path other: DatabasePath, query otherQuery: DatabaseQueryParams, tag otherTag: Int64?) -> Bool {
        if let tag, let otherTag { return tag == otherTag }
        return path == other && query == otherQuery
    }

    /// The wire form of the path: keys joined by `/`, no leading slash (`rooms/r1`; the root is ``).
    var wirePath: String { DatabaseWireSession.wirePath(path) }
}
