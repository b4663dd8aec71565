package import EmulatorModel
package import EmulatorStorage
import EmulatorSupport
import Synchronization

/// Firestore's view of the shared storage engine: one namespace per database
/// (`firestore/<project>/<database>`), keys are document path segments, values ValueCodec bytes.
///
/// Reads take engine snapshots and never block commits; commits run inside the engine's commit
/// serialization and see the head plus their own writes.
package final class DocumentStore: Sendable {
    package let engine: StorageEngine
    /// Equality indexes already ensured, by index id (asking the engine takes its commit lock).
    let ensuredIndexes = Mutex<Set<String>>([])
    let clock: @Sendable () -> Int64

    package init(engine: StorageEngine = StorageEngine(), clock: @escaping @Sendable () -> Int64 = { WallClock.nowMicroseconds() }) {
        self.engine = engine
        self.clock = clock
    }

    /// How long history stays readable, in microseconds.
    package var retention: Int64 { engine.retention }

    /// The oldest read time history still serves (later than `now - retention` when the
    /// engine's memory bound on history dropped older versions early).
    package var retainedSince: Int64 { engine.retainedSince }

    package static func namespace(_ database: DatabaseID) -> NamespaceID {
        if let known = lastNamespace.withLock({ last in last.flatMap { $0.database == database ? $0.namespace : nil } }) {
            return known
        }
        let made = NamespaceID("firestore/\(database.project)/\(database.database)")
        lastNamespace.withLock { $0 = (database, made) }
        return made
    }

    /// The namespace last made, with its database: most requests name the database the one
    /// before did, and then their namespace (a name built and hashed) is not made again.
    private static let lastNamespace = Mutex<(database: DatabaseID, namespace: NamespaceID)?>(nil)

    /// The current time as reads report it: never before the newest commit.
    package func currentTime() -> Int64 {
        max(engine.lastCommitTime, clock() - 1)
    }

    /// A view at `time`, or at head when nil. Also returns the time the read reports.
    func view(_ database: DatabaseID, at time: Int64?) throws(EmulatorError) -> (DatabaseView<StorageSnapshot>, Int64) {
        // The clock is read before the snapshot: any commit the snapshot misses gets a later time
        // than the one reported, so a read at the reported time sees exactly this state.
        let before = clock() - 1
        let snapshot: StorageSnapshot
        do { snapshot = try engine.snapshot(at: time) } catch {
            throw .failedPrecondition("read_time is older than the oldest version the emulator keeps (\(error.message)).")
        }
        let reported = time ?? max(snapshot.readTime, before)
        return (DatabaseView(source: snapshot, namespace: Self.namespace(database)), reported)
    }

    /// Runs `body` with a buffer over the head and applies its writes atomically at a new commit
    /// time, or writes nothing when it throws.
    func commit<R>(
        _ database: DatabaseID, _ body: (inout CommitBuffer) throws(EmulatorError) -> R
    ) throws(EmulatorError) -> (result: R, commitTime: Int64) {
        let ns = Self.namespace(database)
        // `applyCommit` rather than the generic `commit`: this function is specialized for each
        // result type, the engine's generic one is not, and would look up the metadata of its
        // result types at run time on every commit.
        var outcome: Result<R, EmulatorError>?
        let applied = engine.applyCommit { (txn: inout CommitBuilder) -> Bool in
            // The buffer works on the builder where it is (see `CommitBuffer`), for as long as
            // the body runs.
            withUnsafeMutablePointer(to: &txn) { builder in
                var buffer = CommitBuffer(builder: builder, namespace: ns)
                let r = Result { () throws(EmulatorError) -> R in try body(&buffer) }
                outcome = r
                if case .failure = r { return false }
                return true
            }
        }
        switch outcome {
        case .success(let result)?:
            if let applied { return (result, applied.commitTime) }
        case .failure(let error)?:
            throw error
        case nil:
            break
        }
        // The body ran (applyCommit always runs it) and the commit applied it.
        throw .internal("The commit ended without an outcome.")
    }

    /// Documents of `collection` whose `field` is equivalent to `value`, through an equality index
    /// built on first use; nil when the head moved on (the caller scans instead).
    func indexedDocuments(
        _ database: DatabaseID, collection: ResourcePath, field: FieldPath, equalTo value: Value
    ) throws(EmulatorError) -> (documents: [StoredDocument], readTime: Int64)? {
        let ns = Self.namespace(database)
        let id = ensureEqualityIndex(ns, collection: collection, field: field)
        let before = clock() - 1
        let snapshot: StorageSnapshot
        do { snapshot = try engine.snapshot() } catch { return nil }
        guard let hits = try? snapshot.scanIndex(ns, id, .prefix(IndexKey.key(value))) else { return nil }
        var out: [StoredDocument] = []
        for hit in hits {
            guard let e = snapshot.get(ns, hit.key) else { continue }
            out.append(try DatabaseView<StorageSnapshot>.decode(e, path: DatabaseView<StorageSnapshot>.path(hit.key)))
        }
        return (out, readTime(snapshot, clockBefore: before))
    }

    /// Ensures the equality index on `field` of `collection` (index key: the field's value) and
    /// returns its id.
    func ensureEqualityIndex(_ ns: NamespaceID, collection: ResourcePath, field: FieldPath) -> String {
        let id = "firestore-eq|\(collection.description)|\(field.canonicalString)"
        ensureIndex(ns, id: id) { [depth = collection.count + 1] in
            IndexDefinition(
                id: id, scope: DatabaseView<StorageSnapshot>.key(collection), includes: { $0.depth == depth },
                extract: { _, bytes in
                    guard let fields = try? ValueCodec.decode(bytes), let v = fields.value(at: field) else { return [] }
                    return [IndexKey.key(v)]
                })
        }
        return id
    }

    /// The time a head read reports: never before the newest commit.
    func readTime(_ snapshot: StorageSnapshot, clockBefore: Int64) -> Int64 { max(snapshot.readTime, clockBefore) }

    /// Asks the engine for an index once per id (the engine takes its commit lock to check).
    func ensureIndex(_ ns: NamespaceID, id: String, _ definition: () -> IndexDefinition) {
        let key = ns.name + "\u{0}" + id
        if ensuredIndexes.withLock({ $0.contains(key) }) { return }
        engine.ensureIndex(ns, definition())
        ensuredIndexes.withLock { _ = $0.insert(key) }
    }

    /// Removes every document of `database` at or below `path` (all history too).
    package func clear(_ database: DatabaseID, under path: ResourcePath) {
        engine.clear(Self.namespace(database), subtree: DatabaseView<StorageSnapshot>.key(path))
    }
}
