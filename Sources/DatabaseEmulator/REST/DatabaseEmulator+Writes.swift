import EmulatorHTTP
import EmulatorModel
import EmulatorSupport

/// Why a commit was refused inside the serialized section.
enum DatabaseCommitFailure: Error {
    case rest(DatabaseRESTError)
    /// `if-match` did not match: the current value at the location.
    case etagMismatch(DatabaseNode)
}

extension DatabaseEmulator {
    /// Largest accepted body (the REST limit for one write).
    static let maxBodyBytes = 256 * 1024 * 1024

    /// PUT: replace the location (or its priority) with the body.
    func put(_ http: HTTPRequest, _ request: DatabaseRESTRequest, _ namespace: DatabaseNamespace)
        throws(DatabaseRESTError) -> HTTPResponse
    {
        let json = try Self.parseBody(http.body)
        if request.isPriority {
            try DatabaseInputValidator.validatePriority(json)
        } else {
            try DatabaseInputValidator.validate(json, at: request.path, body: http.body)
        }
        // A conditional write answers with the new ETag even unasked (the Admin SDKs read it).
        let withETag = request.wantsETag || http.headers["if-match"] != nil
        return try set(json, at: request.path, http, request, namespace) { node in
            Self.data(node.json(export: request.export), request, etag: withETag ? node.etag : nil)
        }
    }

    /// DELETE: remove the location.
    func delete(_ http: HTTPRequest, _ request: DatabaseRESTRequest, _ namespace: DatabaseNamespace)
        throws(DatabaseRESTError) -> HTTPResponse
    {
        let withETag = request.wantsETag || http.headers["if-match"] != nil
        return try set(.null, at: request.path, http, request, namespace) { node in
            Self.data(.null, request, etag: withETag ? node.etag : nil)
        }
    }

    /// POST: write the body under a new push id; answers `{"name": id}`.
    func post(_ http: HTTPRequest, _ request: DatabaseRESTRequest, _ namespace: DatabaseNamespace)
        throws(DatabaseRESTError) -> HTTPResponse
    {
        if request.isPriority { throw .badRequest(DatabaseRESTError.invalidPath) }
        let json = try Self.parseBody(http.body)
        if request.path.count >= DatabasePath.maxDepth {
            throw .badRequest("Invalid path: path exceeds the maximum depth of \(DatabasePath.maxDepth)")
        }
        let id = pushIds.next(milliseconds: configuration.now())
        let path = request.path.child(id)
        try DatabaseInputValidator.validate(json, at: path, body: http.body)
        return try set(json, at: path, http, request, namespace) { node in
            Self.data(.object([JSONMember("name", .string(id))]), request, etag: request.wantsETag ? node.etag : nil)
        }
    }

    /// One atomic set of `json` at `path` (or its priority), with `if-match` and rules checked
    /// against the head inside the commit.
    private func set(
        _ json: JSONValue, at path: DatabasePath, _ http: HTTPRequest, _ request: DatabaseRESTRequest,
        _ namespace: DatabaseNamespace, respond: (DatabaseNode) -> HTTPResponse
    ) throws(DatabaseRESTError) -> HTTPResponse {
        let now = configuration.now()
        let ifMatch = http.headers["if-match"]
        let auth = request.auth
        let isPriority = request.isPriority
        let target = isPriority ? DatabasePath(keys: path.keys + [".priority"]) : path
        // The current value is read only when something depends on it.
        let needsCurrent = ifMatch != nil || isPriority || json.containsServerValue
        // `writeSizeLimit`: the new data plus the data it replaces must fit the budget.
        let budget = request.writeSizeBudget
        if let budget, http.body.count > budget { throw .badRequest(DatabaseRESTError.writeTooBig) }
        var written = DatabaseNode.empty
        do throws(DatabaseCommitFailure) {
            try namespace.commit { (data, rules) throws(DatabaseCommitFailure) -> DatabaseWrite in
                let current = needsCurrent ? data.node(at: path) : .empty
                if let ifMatch, ifMatch != current.etag { throw .etagMismatch(current) }
                if let budget, !isPriority, http.body.count + data.storedBytes(at: path, upTo: budget) > budget {
                    throw .rest(.badRequest(DatabaseRESTError.writeTooBig))
                }
                let node: DatabaseNode
                if isPriority {
                    let priority = DatabaseNode.build(json, existing: DatabaseNode.fromPriority(current.priority), now: now)
                    node = priority
                    written = current.isEmpty ? .empty : DatabaseNode(current.content, priority: priority.priorityValue)
                } else {
                    node = DatabaseNode.build(json, existing: current, now: now)
                    written = node
                }
                let write = DatabaseWrite.set(target, node)
                if !auth.mayWrite([path], now: now, data: data, newData: DatabaseOverlaySource(base: data, write: write), rules: rules) {
                    throw .rest(.permissionDenied)
                }
                return write
            }
        } catch {
            switch error {
            case .rest(let failure): throw failure
            case .etagMismatch(let current):
                var response = HTTPResponse.json(JSONWriter.encode(current.json()), status: .preconditionFailed)
                response.headers.set("ETag", current.etag)
                return response
            }
        }
        return respond(isPriority ? DatabaseNode.fromPriority(written.priority) : written)
    }

    /// PATCH: a multi-path update below the location, applied atomically; null deletes.
    func patch(_ http: HTTPRequest, _ request: DatabaseRESTRequest, _ namespace: DatabaseNamespace)
        throws(DatabaseRESTError) -> HTTPResponse
    {
        if request.isPriority { throw .badRequest(DatabaseRESTError.invalidPatchBody) }
        let json: JSONValue
        do {
            json = try JSONReader.parse(http.body, rejectingDuplicateKeys: true)
        } catch {
            throw .badRequest(DatabaseRESTError.invalidPatchBody)
        }
        if case .null = json {
            return try set(.null, at: request.path, http, request, namespace) { _ in Self.data(.null, request) }
        }
        guard case .object(let members) = json else { throw .badRequest(DatabaseRESTError.invalidPatchBody) }
        if http.body.count > Self.maxBodyBytes { throw .badRequest(DatabaseRESTError.writeTooBig) }

        // Validate everything before the commit: nothing is written on any error.
        var updates: [(path: DatabasePath, value: JSONValue)] = []
        for member in members {
            var keys: [String] = []
            // A leading or trailing slash is tolerated; an empty key inside the path is not.
            var parts = member.name.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            if parts.first?.isEmpty == true { parts.removeFirst() }
            if parts.last?.isEmpty == true { parts.removeLast() }
            for (index, part) in parts.enumerated() {
                let key = String(decoding: part, as: UTF8.self)
                // `a/.priority` sets a priority, as `PUT a/.priority.json` does.
                if index == parts.count - 1 && index > 0 && key == ".priority" {
                    keys.append(key)
                    continue
                }
                guard DatabaseInputValidator.isValidKey(key), key.utf8.count <= DatabasePath.maxKeyBytes else {
                    throw .badRequest(
                        "Invalid data; couldn't parse key beginning at "
                            + "\(DatabaseInputValidator.position(ofKey: member.name, in: http.body)). "
                            + "Key value can't be empty or contain $ # [ ] / or .")
                }
                keys.append(key)
            }
            if keys.isEmpty { throw .badRequest(DatabaseRESTError.invalidPatchBody) }
            let relative = DatabasePath(keys: keys)
            let absolute = request.path.appending(relative)
            if absolute.count > DatabasePath.maxDepth {
                throw .badRequest(
                    "Invalid data; path specified exceeds the maximum depth that can be written (\(DatabasePath.maxDepth)).")
            }
            if keys.last == ".priority" {
                try DatabaseInputValidator.validatePriority(member.value)
            } else {
                try DatabaseInputValidator.validate(member.value, at: absolute, body: http.body)
            }
            for earlier in updates where earlier.path.isAncestor(of: relative) || relative.isAncestor(of: earlier.path) {
                throw .badRequest(
                    "Invalid data; path \"\(earlier.path)\" and path \"\(relative)\" overlap: "
                        + "an update may not contain a path and its ancestor.")
            }
            updates.append((relative, member.value))
        }
        if updates.isEmpty { return Self.data(.object([]), request) }

        let now = configuration.now()
        let auth = request.auth
        let base = request.path
        var resolved: [(path: DatabasePath, node: DatabaseNode)] = []
        do throws(DatabaseCommitFailure) {
            try namespace.commit { (data, rules) throws(DatabaseCommitFailure) -> DatabaseWrite in
                if let budget = request.writeSizeBudget {
                    // `writeSizeLimit`: the body plus the data every update replaces.
                    var cost = http.body.count
                    for update in updates where cost <= budget && update.path.keys.last != ".priority" {
                        cost += data.storedBytes(at: base.appending(update.path), upTo: budget - cost)
                    }
                    if cost > budget { throw .rest(.badRequest(DatabaseRESTError.writeTooBig)) }
                }
                resolved = updates.map { update in
                    let existing = update.value.containsServerValue ? data.node(at: base.appending(update.path)) : .empty
                    return (update.path, DatabaseNode.build(update.value, existing: existing, now: now))
                }
                let write = DatabaseWrite.update(base: base, resolved)
                if !auth.mayWrite(
                    write.locations, now: now, data: data, newData: DatabaseOverlaySource(base: data, write: write), rules: rules)
                {
                    throw .rest(.permissionDenied)
                }
                return write
            }
        } catch {
            switch error {
            case .rest(let failure): throw failure
            case .etagMismatch: throw .badRequest("if-match is not supported for PATCH requests.")
            }
        }
        let echo = JSONValue.object(
            zip(members, resolved).map { JSONMember($0.0.name, $0.1.node.json(export: request.export)) })
        return Self.data(echo, request)
    }

    /// The JSON body of a PUT or POST.
    static func parseBody(_ body: [UInt8]) throws(DatabaseRESTError) -> JSONValue {
        if body.count > maxBodyBytes { throw .badRequest(DatabaseRESTError.writeTooBig) }
        do {
            // A key given twice is refused rather than one of its values dropped silently.
            return try JSONReader.parse(body, rejectingDuplicateKeys: true)
        } catch {
            throw .badRequest(DatabaseRESTError.invalidJSON)
        }
    }
}

extension JSONValue {
    /// Whether a `.sv` member appears anywhere inside.
    var containsServerValue: Bool {
        switch self {
        case .object(let members): members.contains { $0.name == ".sv" || $0.value.containsServerValue }
        case .array(let items): items.contains { $0.containsServerValue }
        default: false
        }
    }
}
