import EmulatorModel
import EmulatorSupport

extension DatabaseWireSession {
    /// `p`: `{"p":path,"d":data[,"h":hash]}`, a set (data in export form, server values allowed;
    /// a path ending in `/.priority` sets a priority). With `h` it is a transaction: written only
    /// when the hash of the current value equals `h`, else `datastale`.
    func put(_ body: JSONValue) -> Answer {
        guard let (path, isPriority) = Self.location(body[member: "p"], allowPriority: true) else {
            return .failure(.invalid("Invalid path"))
        }
        let data = body[member: "d"] ?? .null
        var condition: DatabaseCondition?
        if let h = body[member: "h"] {
            guard case .string(let hash) = h else { return .failure(.invalid("Invalid hash")) }
            condition = .hash(hash)
        }
        do throws(DatabaseFailure) {
            try Self.validate(data, isPriority: isPriority, at: path)
            try service.set(data, at: path, priority: isPriority, in: namespace, auth: auth, condition: condition)
        } catch {
            return .failure(error)
        }
        return .success(.string(""))
    }

    /// `m`: `{"p":path,"d":{relPath:value,…}}`, a multi-path update below the location.
    func merge(_ body: JSONValue) -> Answer {
        guard let (path, _) = Self.location(body[member: "p"]) else { return .failure(.invalid("Invalid path")) }
        do throws(DatabaseFailure) {
            try service.update(try Self.updates(body[member: "d"], at: path), at: path, in: namespace, auth: auth)
        } catch {
            return .failure(error)
        }
        return .success(.string(""))
    }

    // MARK: Decoding

    /// Throws unless `json` may be written at `path` (with `isPriority`, as its priority).
    static func validate(_ json: JSONValue, isPriority: Bool, at path: DatabasePath) throws(DatabaseFailure) {
        if isPriority {
            try DatabaseInputValidator.validatePriority(json)
        } else {
            try DatabaseInputValidator.validate(json, at: path, body: [])
        }
    }

    /// The (relative path, value) pairs of a merge body: an object whose keys are paths (a last
    /// key `.priority` sets a priority); no path may contain another.
    static func updates(_ json: JSONValue?, at base: DatabasePath) throws(DatabaseFailure)
        -> [(path: DatabasePath, value: JSONValue)]
    {
        guard case .object(let members)? = json else { throw .invalid("Merge data must be an object") }
        var updates: [(path: DatabasePath, value: JSONValue)] = []
        updates.reserveCapacity(members.count)
        var overlaps = DatabaseOverlapCheck()
        for member in members {
            guard let (relative, isPriority) = location(.string(member.name), allowPriority: true), !relative.isRoot else {
                throw .invalid("Invalid key in merge: \(member.name)")
            }
            let absolute = base.appending(relative)
            if absolute.count > DatabasePath.maxDepth { throw .invalid("Path too deep") }
            try validate(member.value, isPriority: isPriority, at: absolute)
            let path = isPriority ? relative.child(".priority") : relative
            if let earlier = overlaps.insert(path) { throw .invalid("Merge paths \(earlier) and \(path) overlap") }
            updates.append((path, member.value))
        }
        return updates
    }
}
