import EmulatorHTTP
import EmulatorModel
import EmulatorSupport

/// The open event streams that watch the same location with the same query and credentials.
/// Each commit's event is computed and encoded once per group, then written to every member.
/// Only touched under the namespace lock.
final class DatabaseStreamGroup {
    let path: DatabasePath
    let query: DatabaseQuery
    let auth: DatabaseAuth
    /// The last view sent (query streams only: a changed view is sent as a whole `put /`).
    var lastView: DatabaseNode
    var writers: [any HTTPStreamWriter] = []

    init(path: DatabasePath, query: DatabaseQuery, auth: DatabaseAuth, view: DatabaseNode) {
        self.path = path
        self.query = query
        self.auth = auth
        self.lastView = view
    }

    /// The event for a commit made by someone else (import, clear): a whole `put /` if any
    /// changed location is related to the stream.
    func event(forChangesAt locations: [DatabasePath], after: any DatabaseDataSource) -> DatabaseEvent? {
        guard locations.contains(where: { $0.isAncestor(of: path) || path.isAncestor(of: $0) }) else { return nil }
        let view = query.apply(to: after.node(at: path))
        if !query.isIdentity && view == lastView { return nil }
        lastView = view
        return .put(path: .root, data: view.json())
    }

    /// The event a commit produces for this group, or nil when the write does not touch it.
    func event(for write: DatabaseWrite, after: any DatabaseDataSource) -> DatabaseEvent? {
        guard touches(write) else { return nil }
        if !query.isIdentity {
            let view = query.apply(to: after.node(at: path))
            if view == lastView { return nil }
            lastView = view
            return .put(path: .root, data: view.json())
        }
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
        }
    }

    private func touches(_ write: DatabaseWrite) -> Bool {
        write.locations.contains { $0.isAncestor(of: path) || path.isAncestor(of: $0) }
    }

    private static func joined(_ path: DatabasePath) -> String { path.keys.joined(separator: "/") }

    /// Writes `bytes` to every member, dropping members whose stream has closed.
    func send(_ bytes: [UInt8]) {
        writers.removeAll { writer in !writer.write(bytes) }
    }

    /// Drops closed members.
    func prune() {
        writers.removeAll { !$0.isOpen }
    }
}
