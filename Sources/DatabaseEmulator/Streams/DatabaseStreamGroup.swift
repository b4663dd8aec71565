import EmulatorHTTP
import EmulatorModel
import EmulatorStorage
import EmulatorSupport

/// The open event streams that watch the same location with the same query and credentials.
/// Each commit's event is computed and encoded once per location and query (see
/// `DatabaseEventCache`), then the same bytes are written to every member.
/// Only touched under the namespace lock.
final class DatabaseStreamGroup {
    let path: DatabasePath
    let query: DatabaseQueryParams
    let auth: DatabaseAuth
    /// The last view sent (query streams only: a changed view is sent as a whole `put /`).
    var lastView: DatabaseNode
    /// The streams, each with the commit time its first `put` was read at: it takes only later commits.
    var members: [(writer: any HTTPStreamWriter, openedAt: CommitTime)] = []

    var writers: [any HTTPStreamWriter] { members.map(\.writer) }

    init(path: DatabasePath, query: DatabaseQueryParams, auth: DatabaseAuth, view: DatabaseNode) {
        self.path = path
        self.query = query
        self.auth = auth
        self.lastView = view
    }

    /// The encoded event a commit sends this group, or nil when it sends none. `write` is the
    /// commit's description when it was made here (nil for import or clear: any related change is
    /// a whole `put /`); `locations` are the changed locations (computed once per commit). Views
    /// and encodings come from `cache`, shared by the groups with the same location and query.
    func eventBytes(
        for write: DatabaseWrite?, locations: [DatabasePath], after: DatabaseSnapshotSource, cache: inout DatabaseEventCache
    ) -> [UInt8]? {
        guard touches(locations) else { return nil }
        if query.isIdentity, let write {
            return cache.eventBytes(at: path, query: query) { event(for: write, after: after)?.bytes }
        }
        let view = cache.view(at: path, query: query) { query.apply(to: after.node(at: path)) }
        if !query.isIdentity && view == lastView { return nil }
        lastView = view
        return cache.putBytes(at: path, query: query) { DatabaseEvent.put(path: .root, data: view.json()).bytes }
    }

    /// The event a commit made here sends a plain (whole-location) stream that it touches.
    private func event(for write: DatabaseWrite, after: DatabaseSnapshotSource) -> DatabaseEvent? {
        switch write {
        case .set(let location, let node):
            if location.isAncestor(of: path) {
                return .put(path: .root, data: after.node(at: path).json())
            }
            guard let relative = location.relative(to: path) else { return nil }
            return .put(path: relative, data: node.json())
        case .update(let base, let changes):
            if path.isAncestor(of: base), let relative = base.relative(to: path) {
                let data = JSONValue.object(changes.map { JSONMember(Self.joined($0.path), $0.node.json()) })
                return .patch(path: relative, data: data)
            }
            // The base is above the stream: keep the changes that reach into the stream.
            var members: [JSONMember] = []
            for change in changes {
                let location = base.appending(change.path)
                if location.isAncestor(of: path) { return .put(path: .root, data: after.node(at: path).json()) }
                if let relative = location.relative(to: path) {
                    members.append(JSONMember(Self.joined(relative), change.node.json()))
                }
            }
            return members.isEmpty ? nil : .patch(path: .root, data: .object(members))
        case .children:
            return event(for: write.expanded, after: after)
        }
    }

    /// Whether a location is this stream's location, above it or below it.
    func touches(_ locations: [DatabasePath]) -> Bool {
        let keys = path.keys
        return locations.contains { location in
            let other = location.keys
            let shared = Swift.min(keys.count, other.count)
            var i = 0
            while i < shared {
                if keys[i].utf8.count != other[i].utf8.count || !keys[i].utf8.elementsEqual(other[i].utf8) { return false }
                i += 1
            }
            return true
        }
    }

    private static func joined(_ path: DatabasePath) -> String { path.keys.joined(separator: "/") }

    /// Whether some member has not yet seen the commit at `time`.
    func wantsCommit(at time: CommitTime) -> Bool {
        members.contains { $0.openedAt < time }
    }

    /// Writes `bytes` to every member (only to those opened before `time`, when given), dropping
    /// members whose stream has closed.
    ///
    /// Streams whose connection another thread sends for are handed over first, so that thread
    /// sends its share while this one sends the rest (`HTTPStreamFanOut`).
    func send(_ bytes: [UInt8], committedAt time: CommitTime? = nil) {
        let refused = HTTPStreamFanOut.write(bytes, count: members.count) { index in
            if let time, members[index].openedAt >= time { return nil }
            return members[index].writer
        }
        guard !refused.isEmpty else { return }
        var next = 0
        var kept: [(writer: any HTTPStreamWriter, openedAt: CommitTime)] = []
        kept.reserveCapacity(members.count - refused.count)
        for (index, member) in members.enumerated() {
            if next < refused.count, refused[next] == index {
                next += 1
            } else {
                kept.append(member)
            }
        }
        members = kept
    }
}
