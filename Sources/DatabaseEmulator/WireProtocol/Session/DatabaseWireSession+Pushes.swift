import Synchronization
import EmulatorModel
import EmulatorStorage
import EmulatorSupport

extension DatabaseWireSession {
    /// What the namespace's fan-out tells the session: a commit is pushed, a rules change
    /// re-checks the listens.
    func observe(_ event: DatabaseNamespaceEvent) {
        switch event {
        case .commit(let commit): deliver(commit)
        case .rulesChanged: recheckListens()
        }
    }

    /// One commit (committing thread, commit order): pushes what changed to each listen it
    /// touches, scoped to the listen, and revokes listens the rules no longer allow.
    func deliver(_ commit: DatabaseCommit) {
        let locations = commit.storedLocations
        let time = service.now()
        state.withLock { s in
            guard !s.isClosed, !s.listens.isEmpty else { return }
            let rules = namespace.rules
            var revoked: [Int] = []
            for i in s.listens.indices where s.listens[i].openedAt < commit.time {
                let listen = s.listens[i]
                // Every listen is re-checked: rules may read data outside the listen's location.
                if !rules.mayRead(listen.path, query: listen.query, auth: s.auth, now: time, data: commit.after) {
                    send(Self.revocation(listen))
                    revoked.append(i)
                    continue
                }
                guard Self.touches(listen.path, locations) else { continue }
                if listen.isFiltered {
                    if let reply = Self.filteredPush(&s.listens[i], after: commit.after) { send(reply) }
                } else if let reply = Self.push(for: listen, locations: locations, before: commit.before, after: commit.after) {
                    send(reply)
                }
            }
            for i in revoked.reversed() { s.listens.remove(at: i) }
        }
    }

    /// Whether some location is the listen's location, above it or below it.
    static func touches(_ path: DatabasePath, _ locations: [DatabasePath]) -> Bool {
        locations.contains { $0.isAncestor(of: path) || path.isAncestor(of: $0) }
    }

    /// The push for a default listen at L: a change at or above L, or L appearing or vanishing,
    /// sends `d` at L with its new value (the storage feed names changed leaves, so a write above L
    /// that keeps L an object shows up as changes below it); changes below L send `d` at the one changed location, or `m` at L with every changed
    /// location (relative) when there are several. A location is widened to its parent while the
    /// parent is new or gone, so writing or removing an object is one entry, not one per leaf.
    static func push(
        for listen: DatabaseWireListen, locations: [DatabasePath], before: DatabaseSnapshotSource,
        after: DatabaseSnapshotSource
    ) -> DatabaseWireReply? {
        let path = listen.path
        // Written at or above the location, or the location appeared or vanished: the whole value.
        if locations.contains(where: { $0.isAncestor(of: path) }) || !before.exists(path)
            || !after.exists(path)
        {
            return .data("d", path: listen.wirePath, data: after.node(at: path).json(export: true), tag: nil)
        }
        var below: [DatabasePath] = []
        for location in locations {
            guard path.isAncestor(of: location) else { continue }
            var widened = location
            while let parent = widened.parent, parent.count > path.count,
                !before.exists(parent) || !after.exists(parent)
            {
                widened = parent
            }
            below.append(widened)
        }
        // Keep the outermost of nested locations, once each.
        var distinct: [DatabasePath] = []
        for location in below.sorted(by: { $0.count < $1.count })
        where !distinct.contains(where: { $0.isAncestor(of: location) }) {
            distinct.append(location)
        }
        guard let first = distinct.first else { return nil }
        if distinct.count == 1 {
            return .data("d", path: wirePath(first), data: after.node(at: first).json(export: true), tag: nil)
        }
        let members = distinct.compactMap { location -> JSONMember? in
            guard let relative = location.relative(to: path) else { return nil }
            return JSONMember(wirePath(relative), after.node(at: location).json(export: true))
        }
        return .data("m", path: listen.wirePath, data: .object(members), tag: nil)
    }

    /// The push for a filtered listen: the new query result compared with the last one sent, as
    /// `m` at L with changed children (null for children that left the window), or `d` at L when
    /// either result is not an object. Nil when the result did not change.
    static func filteredPush(_ listen: inout DatabaseWireListen, after: DatabaseSnapshotSource) -> DatabaseWireReply? {
        let view = listen.query.apply(to: after.node(at: listen.path))
        let old = listen.lastView
        guard view != old else { return nil }
        listen.lastView = view
        let objects = !view.isLeaf && !old.isLeaf
        guard objects, !view.isEmpty else {
            return .data("d", path: listen.wirePath, data: view.json(export: true), tag: listen.tag)
        }
        var members: [JSONMember] = []
        let newKids = view.children
        let oldKids = old.children
        var i = 0
        var j = 0
        // Both child lists are in key order: merge them.
        while i < newKids.count || j < oldKids.count {
            let c: Int
            if i == newKids.count {
                c = 1
            } else if j == oldKids.count {
                c = -1
            } else {
                c = DatabaseOrder.compareKeys(newKids.keys[i], oldKids.keys[j])
            }
            if c < 0 {
                members.append(JSONMember(newKids.keys[i], newKids.nodes[i].json(export: true)))
                i += 1
            } else if c > 0 {
                members.append(JSONMember(oldKids.keys[j], .null))
                j += 1
            } else {
                if newKids.nodes[i] != oldKids.nodes[j] {
                    members.append(JSONMember(newKids.keys[i], newKids.nodes[i].json(export: true)))
                }
                i += 1
                j += 1
            }
        }
        if members.isEmpty {
            // Only the priority of the result changed.
            return .data("d", path: listen.wirePath, data: view.json(export: true), tag: listen.tag)
        }
        return .data("m", path: listen.wirePath, data: .object(members), tag: listen.tag)
    }
}
