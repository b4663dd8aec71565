import EmulatorModel
import EmulatorSupport

extension DatabaseWireSession {
    /// `p`: `{"p":path,"d":data[,"h":hash]}`, a set (data in export form, server values allowed;
    /// a path ending in `/.priority` sets a priority). With `h` it is a transaction: written only
    /// when the hash of the current value equals `h`, else `datastale`.
    func put(_ body: JSONValue) -> DatabaseWireResult {
        guard let (path, isPriority) = Self.location(body[member: "p"], allowPriority: true) else {
            return .invalid("Invalid path")
        }
        let data = body[member: "d"] ?? .null
        var expectedHash: String?
        if let h = body[member: "h"] {
            guard case .string(let hash) = h else { return .invalid("Invalid hash") }
            expectedHash = hash
        }
        if let failure = Self.validate(data, at: path, isPriority: isPriority) { return failure }
        return commitSet(data, at: path, isPriority: isPriority, expectedHash: expectedHash, auth: auth)
    }

    /// `m`: `{"p":path,"d":{relPath:value,…}}`, a multi-path update below the location.
    func merge(_ body: JSONValue) -> DatabaseWireResult {
        guard let (path, _) = Self.location(body[member: "p"]) else { return .invalid("Invalid path") }
        do {
            return commitUpdate(try Self.updates(body[member: "d"], at: path), at: path, auth: auth)
        } catch {
            return error.result
        }
    }

    // MARK: Commits

    /// One atomic set, checked against the rules (and `expectedHash`) inside the commit.
    func commitSet(
        _ json: JSONValue, at path: DatabasePath, isPriority: Bool, expectedHash: String?, auth: DatabaseAuth
    ) -> DatabaseWireResult {
        let time = now()
        let target = isPriority ? path.child(".priority") : path
        do throws(DatabaseWireCommitFailure) {
            try namespace.commit { (data, rules) throws(DatabaseWireCommitFailure) -> DatabaseWrite in
                let current = data.node(at: path)
                if let expectedHash, expectedHash != current.hash { throw .datastale }
                let node: DatabaseNode
                if isPriority {
                    node = DatabaseNode.build(json, existing: DatabaseNode.fromPriority(current.priority), now: time)
                } else {
                    node = DatabaseNode.build(json, existing: current, now: time)
                }
                let write = DatabaseWrite.set(target, node)
                let newData = DatabaseOverlaySource(base: data, write: write)
                guard auth.mayWrite([path], now: time, data: data, newData: newData, rules: rules) else {
                    throw .permissionDenied
                }
                return write
            }
        } catch {
            return error.result
        }
        return .ok(.string(""))
    }

    /// One atomic multi-path update below `base`.
    func commitUpdate(_ updates: [(path: DatabasePath, value: JSONValue)], at base: DatabasePath, auth: DatabaseAuth)
        -> DatabaseWireResult
    {
        if updates.isEmpty { return .ok(.string("")) }
        let time = now()
        do throws(DatabaseWireCommitFailure) {
            try namespace.commit { (data, rules) throws(DatabaseWireCommitFailure) -> DatabaseWrite in
                let resolved = updates.map { update in
                    let existing = update.value.containsServerValue ? data.node(at: base.appending(update.path)) : .empty
                    return (update.path, DatabaseNode.build(update.value, existing: existing, now: time))
                }
                let write = DatabaseWrite.update(base: base, resolved)
                let newData = DatabaseOverlaySource(base: data, write: write)
                guard auth.mayWrite(write.locations, now: time, data: data, newData: newData, rules: rules) else {
                    throw .permissionDenied
                }
                return write
            }
        } catch {
            return error.result
        }
        return .ok(.string(""))
    }

    // MARK: Validation

    /// The failure for a value that may not be written at `path`, or nil.
    static func validate(_ json: JSONValue, at path: DatabasePath, isPriority: Bool) -> DatabaseWireResult? {
        do {
            if isPriority {
                try DatabaseInputValidator.validatePriority(json)
            } else {
                try DatabaseInputValidator.validate(json, at: path, body: [])
            }
            return nil
        } catch {
            return .rest(error)
        }
    }

    /// The (relative path, value) pairs of a merge body: an object whose keys are paths (a last
    /// key `.priority` sets a priority); no path may contain another.
    static func updates(_ json: JSONValue?, at base: DatabasePath) throws(DatabaseWireRejection)
        -> [(path: DatabasePath, value: JSONValue)]
    {
        guard case .object(let members)? = json else { throw DatabaseWireRejection(.invalid("Merge data must be an object")) }
        var updates: [(path: DatabasePath, value: JSONValue)] = []
        for member in members {
            guard let (relative, isPriority) = location(.string(member.name), allowPriority: true), !relative.isRoot else {
                throw DatabaseWireRejection(.invalid("Invalid key in merge: \(member.name)"))
            }
            let absolute = base.appending(relative)
            if absolute.count > DatabasePath.maxDepth { throw DatabaseWireRejection(.invalid("Path too deep")) }
            if let failure = validate(member.value, at: absolute, isPriority: isPriority) { throw DatabaseWireRejection(failure) }
            let path = isPriority ? relative.child(".priority") : relative
            for earlier in updates where earlier.path.isAncestor(of: path) || path.isAncestor(of: earlier.path) {
                throw DatabaseWireRejection(.invalid("Merge paths \(earlier.path) and \(path) overlap"))
            }
            updates.append((path, member.value))
        }
        return updates
    }
}
