import EmulatorHTTP
import EmulatorModel
import EmulatorSupport

extension DatabaseEmulator {
    /// Largest accepted body (the REST limit for one write).
    static let maxBodyBytes = 256 * 1024 * 1024

    /// PUT: replace the location (or its priority) with the body.
    func put(_ http: HTTPRequest, _ request: DatabaseRESTRequest, _ namespace: DatabaseNamespace)
        throws(DatabaseFailure) -> HTTPResponse
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
        throws(DatabaseFailure) -> HTTPResponse
    {
        let withETag = request.wantsETag || http.headers["if-match"] != nil
        return try set(.null, at: request.path, http, request, namespace) { node in
            Self.data(.null, request, etag: withETag ? node.etag : nil)
        }
    }

    /// POST: write the body under a new push id; answers `{"name": id}`.
    func post(_ http: HTTPRequest, _ request: DatabaseRESTRequest, _ namespace: DatabaseNamespace)
        throws(DatabaseFailure) -> HTTPResponse
    {
        if request.isPriority { throw .invalid(DatabaseFailure.invalidPath) }
        let json = try Self.parseBody(http.body)
        if request.path.count >= DatabasePath.maxDepth {
            throw .invalid("Invalid path: path exceeds the maximum depth of \(DatabasePath.maxDepth)")
        }
        let id = service.pushID()
        let path = request.path.child(id)
        try DatabaseInputValidator.validate(json, at: path, body: http.body)
        return try set(json, at: path, http, request, namespace) { node in
            Self.data(.object([JSONMember("name", .string(id))]), request, etag: request.wantsETag ? node.etag : nil)
        }
    }

    /// One set through the service, with REST's `if-match` and `writeSizeLimit`.
    private func set(
        _ json: JSONValue, at path: DatabasePath, _ http: HTTPRequest, _ request: DatabaseRESTRequest,
        _ namespace: DatabaseNamespace, respond: (DatabaseNode) -> HTTPResponse
    ) throws(DatabaseFailure) -> HTTPResponse {
        let budget = request.writeSizeBudget.map { DatabaseWriteBudget(bytes: $0, requestBytes: http.body.count) }
        let written = try service.set(
            json, at: path, priority: request.isPriority, in: namespace, auth: request.auth,
            condition: http.headers["if-match"].map(DatabaseCondition.etag), budget: budget)
        return respond(written)
    }

    /// PATCH: a multi-path update below the location, applied atomically; null deletes.
    func patch(_ http: HTTPRequest, _ request: DatabaseRESTRequest, _ namespace: DatabaseNamespace)
        throws(DatabaseFailure) -> HTTPResponse
    {
        if request.isPriority { throw .invalid(DatabaseFailure.invalidPatchBody) }
        // The bulk form read straight from the bytes (no tree); nil leaves the body to the
        // general way below, which answers every other body (and every error) as before.
        if http.body.count <= Self.maxBodyBytes,
            let (keys, stored) = DatabaseStoredBytes.children(ofBody: http.body, depth: request.path.count + 1)
        {
            return try updateChildren(keys, stored, http, request, namespace)
        }
        let json: JSONValue
        do {
            json = try JSONReader.parse(http.body, rejectingDuplicateKeys: true)
        } catch {
            throw .invalid(DatabaseFailure.invalidPatchBody)
        }
        if case .null = json {
            return try set(.null, at: request.path, http, request, namespace) { _ in Self.data(.null, request) }
        }
        guard case .object(let members) = json else { throw .invalid(DatabaseFailure.invalidPatchBody) }
        if http.body.count > Self.maxBodyBytes { throw .writeTooBig }

        // Validate everything before the commit: nothing is written on any error.
        var updates: [(path: DatabasePath, value: JSONValue)] = []
        updates.reserveCapacity(members.count)
        var overlaps = DatabaseOverlapCheck()
        // Names without a slash are single keys, and the parser refused duplicate names: such
        // paths cannot overlap, so only a body with a slash somewhere needs the check.
        let mayOverlap = members.contains { $0.name.utf8.contains(UInt8(ascii: "/")) }
        // The bulk form (plain keys, values that are leaves or small objects): stored straight
        // from the JSON, no nodes built.
        if !mayOverlap, let stored = Self.storedChildren(members, below: request.path) {
            return try updateChildren(members.map(\.name), stored, http, request, namespace)
        }
        for member in members {
            func invalidKey() -> DatabaseFailure {
                .invalid(
                    "Invalid data; couldn't parse key beginning at "
                        + "\(DatabaseInputValidator.position(ofKey: member.name, in: http.body)). "
                        + "Key value can't be empty or contain $ # [ ] / or .")
            }
            var keys: [String] = []
            if !mayOverlap && !member.name.isEmpty {
                // No slash: the name is the key.
                guard DatabaseInputValidator.isValidKey(member.name), member.name.utf8.count <= DatabasePath.maxKeyBytes else {
                    throw invalidKey()
                }
                keys = [member.name]
            }
            // A leading or trailing slash is tolerated; an empty key inside the path is not.
            var parts = keys.isEmpty ? member.name.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) : []
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
                    throw invalidKey()
                }
                keys.append(key)
            }
            if keys.isEmpty { throw .invalid(DatabaseFailure.invalidPatchBody) }
            let relative = DatabasePath(keys: keys)
            let absolute = request.path.appending(relative)
            if absolute.count > DatabasePath.maxDepth {
                throw .invalid(
                    "Invalid data; path specified exceeds the maximum depth that can be written (\(DatabasePath.maxDepth)).")
            }
            if keys.last == ".priority" {
                try DatabaseInputValidator.validatePriority(member.value)
            } else {
                try DatabaseInputValidator.validate(member.value, at: absolute, body: http.body)
            }
            if mayOverlap, let earlier = overlaps.insert(relative) {
                throw .invalid(
                    "Invalid data; path \"\(earlier)\" and path \"\(relative)\" overlap: "
                        + "an update may not contain a path and its ancestor.")
            }
            updates.append((relative, member.value))
        }
        if updates.isEmpty { return Self.data(.object([]), request) }

        let budget = request.writeSizeBudget.map { DatabaseWriteBudget(bytes: $0, requestBytes: http.body.count) }
        let resolved = try service.update(updates, at: request.path, in: namespace, auth: request.auth, budget: budget)
        if request.print == .silent { return Self.data(.null, request) }
        let echo = JSONValue.object(
            zip(members, resolved).map { JSONMember($0.0.name, $0.1.json(export: request.export)) })
        return Self.data(echo, request)
    }

    /// The bulk `PATCH` of direct children given as their stored bytes, and its answer (the
    /// children written, as the general way echoes them).
    private func updateChildren(
        _ keys: [String], _ stored: [[UInt8]], _ http: HTTPRequest, _ request: DatabaseRESTRequest,
        _ namespace: DatabaseNamespace
    ) throws(DatabaseFailure) -> HTTPResponse {
        let budget = request.writeSizeBudget.map { DatabaseWriteBudget(bytes: $0, requestBytes: http.body.count) }
        try service.updateChildren(keys, stored: stored, at: request.path, in: namespace, auth: request.auth, budget: budget)
        if request.print == .silent { return Self.data(.null, request) }
        let echo = JSONValue.object(
            zip(keys, stored).map { key, bytes in
                JSONMember(key, (DatabaseStorageMapping.storedNode(bytes) ?? .empty).json(export: request.export))
            })
        return Self.data(echo, request)
    }

    /// The stored bytes of each member of a `PATCH` body written below `base`, when every member
    /// names one valid key and its value is one `DatabaseStoredBytes` encodes; else nil (the
    /// general way then validates and reports errors).
    private static func storedChildren(_ members: [JSONMember], below base: DatabasePath) -> [[UInt8]]? {
        guard !members.isEmpty, base.count < DatabasePath.maxDepth else { return nil }
        var stored: [[UInt8]] = []
        stored.reserveCapacity(members.count)
        for member in members {
            guard DatabaseInputValidator.isValidKey(member.name), member.name.utf8.count <= DatabasePath.maxKeyBytes,
                let bytes = DatabaseStoredBytes.encode(member.value, depth: base.count + 1)
            else { return nil }
            stored.append(bytes)
        }
        return stored
    }

    /// The JSON body of a PUT or POST.
    static func parseBody(_ body: [UInt8]) throws(DatabaseFailure) -> JSONValue {
        if body.count > maxBodyBytes { throw .writeTooBig }
        do {
            // A key given twice is refused rather than one of its values dropped silently.
            return try JSONReader.parse(body, rejectingDuplicateKeys: true)
        } catch {
            throw .invalid(DatabaseFailure.invalidJSON)
        }
    }
}
