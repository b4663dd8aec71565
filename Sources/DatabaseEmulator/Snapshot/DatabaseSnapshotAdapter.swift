package import EmulatorModel
package import EmulatorStorage
package import EmulatorSupport

/// How Realtime Database data goes to and from a snapshot: per namespace, the root in export
/// format (`.priority`/`.value` kept, never arrays), the JSON `database_export/<ns>.json` holds.
///
/// ```swift
/// let files = DatabaseSnapshotAdapter.exportNamespaces(from: try engine.snapshot())
/// try DatabaseSnapshotAdapter.importNamespace("demo-default-rtdb", json: parsed, into: engine)
/// ```
package enum DatabaseSnapshotAdapter {
    /// Every namespace holding data in `snapshot`, plus `alsoInclude` (written as `null` when
    /// empty, as the official export does for namespaces imported at start-up), sorted by name.
    package static func exportNamespaces(
        from snapshot: StorageSnapshot, alsoInclude: [String] = []
    ) -> [(name: String, json: [UInt8])] {
        let prefix = "database/"
        var names = Set(alsoInclude)
        for namespace in snapshot.namespaces where namespace.name.hasPrefix(prefix) {
            var entries = snapshot.scan(namespace).makeIterator()
            if entries.next() != nil { names.insert(String(namespace.name.dropFirst(prefix.count))) }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map { name in
            let source = DatabaseSnapshotSource(snapshot: snapshot, namespace: DatabaseStorageMapping.namespaceID(name))
            return (name, source.node(at: .root).encoded(export: true))
        }
    }

    /// The namespaces `streamExport` should write: every one holding data in `snapshot`, plus
    /// `alsoInclude` (written as `null` when empty, as officially), sorted by name.
    package static func exportNamespaceNames(from snapshot: StorageSnapshot, alsoInclude: [String] = []) -> [String] {
        let prefix = "database/"
        var names = Set(alsoInclude)
        for namespace in snapshot.namespaces where namespace.name.hasPrefix(prefix) {
            var entries = snapshot.scan(namespace).makeIterator()
            if entries.next() != nil { names.insert(String(namespace.name.dropFirst(prefix.count))) }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// Writes namespace `name` of `snapshot` in export format (the bytes `exportNamespaces`
    /// would give for it) through `write`, in pieces of about `chunkBytes`, without building the
    /// tree or the whole document.
    ///
    /// ```swift
    /// try DatabaseSnapshotAdapter.streamExport("demo-default-rtdb", from: cut) { piece in try file.write(piece) }
    /// ```
    package static func streamExport<Failure: Error>(
        _ name: String, from snapshot: StorageSnapshot, chunkBytes: Int = 1 << 20,
        _ write: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        var stream = DatabaseExportStream<Failure>(
            snapshot: snapshot, namespace: DatabaseStorageMapping.namespaceID(name), chunkBytes: chunkBytes)
        try stream.run(write)
    }

    /// Replaces namespace `name` with `json` (export or plain format) in one commit.
    /// Throws `INVALID_ARGUMENT` for data a write could not carry (bad keys, too deep, …).
    package static func importNamespace(_ name: String, json: JSONValue, into engine: StorageEngine) throws(EmulatorError) {
        do throws(DatabaseFailure) {
            try DatabaseInputValidator.validate(json, at: .root, body: [])
        } catch {
            throw .invalidArgument("namespace \(name): \(error.message)")
        }
        loadNamespace(name, json: json, into: engine)
    }

    /// Checks a namespace's JSON as `importNamespace` would, without loading it; the message
    /// names the key path of the first problem: `at /users/a.b: Invalid data; key "a.b" can't be
    /// empty or contain $ # [ ] / or .`. nil when the JSON can be imported.
    ///
    /// ```swift
    /// if let problem = DatabaseSnapshotAdapter.importProblem(in: parsed) { throw … "\(file): \(problem)" }
    /// ```
    package static func importProblem(in json: JSONValue) -> String? {
        do throws(DatabaseFailure) {
            try DatabaseInputValidator.validate(json, at: .root, body: [])
            return nil
        } catch {
            guard let (path, message) = DatabaseInputValidator.locateProblem(in: json) else { return error.message }
            return "at /\(path.joined(separator: "/")): \(message)"
        }
    }

    /// Replaces namespace `name` with `json` in one commit, without checking it: for JSON that
    /// `importProblem` found nothing wrong with.
    package static func loadNamespace(_ name: String, json: JSONValue, into engine: StorageEngine) {
        let node = DatabaseNode.build(json, existing: .empty, now: WallClock.nowMilliseconds())
        let ns = DatabaseStorageMapping.namespaceID(name)
        engine.commit { (txn: inout CommitBuilder) in
            DatabaseStorageMapping.apply(.set(.root, node), to: &txn, ns)
        }
    }
}
