import EmulatorHTTP
import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import SecurityRules

/// The Realtime Database itself, independent of any transport: REST, Server-Sent Events and the
/// SDKs' wire protocol (over a WebSocket or long-polling) only decode their requests into these
/// calls and encode the answers; every operation checks the namespace's rules here and fails
/// with one `DatabaseFailure`, which each transport maps to its own wire form.
///
/// - Reads: `get` (a node, rules-checked with its query), `query` (the query's view of it),
///   `checkRead` (before a stream or listen opens).
/// - Writes: `set` (PUT, POST, DELETE, wire `p`, with an optional compare-and-set: REST `if-match`
///   ETag, wire transaction hash), `update` (PATCH, wire `m`: a multi-path update), `pushID`
///   (POST); server values (`{".sv": …}`) resolve inside the commit against the current data.
/// - onDisconnect: `check` and `perform` a `DatabaseDeferredWrite`.
/// - Changes: each namespace's one fan-out (`DatabaseNamespace`) sends commits to event streams
///   (`openStream`) and to observers (wire sessions with listens); `setRules` swaps the rules and
///   re-checks both.
///
/// ```swift
/// let service = DatabaseService(storage: engine, rulesLogger: nil, now: { WallClock.nowMilliseconds() })
/// let ns = service.namespace("demo-default-rtdb")
/// try service.set(.int(1), at: DatabasePath(keys: ["a"]), in: ns, auth: .admin)
/// try service.get(DatabasePath(keys: ["a"]), in: ns, auth: .unauthenticated)   // .leaf(.int(1))
/// ```
final class DatabaseService: Sendable {
    let store: DatabaseStore
    let pushIds = PushIdGenerator()
    /// Server time in milliseconds since the epoch (timestamps, push ids, rules' `now`).
    let now: @Sendable () -> Int64

    init(
        storage: StorageEngine, rulesLogger: Logger?, requestLog: RulesRequestLog? = nil, namespacesKeptForReads: Int = 10_000,
        now: @escaping @Sendable () -> Int64
    ) {
        self.store = DatabaseStore(
            engine: storage, rulesLogger: rulesLogger, requestLog: requestLog, namespacesKeptForReads: namespacesKeptForReads, now: now)
        self.now = now
    }

    /// The namespace called `name`, created on first use with the default rules.
    func namespace(_ name: String) -> DatabaseNamespace { store.namespace(name) }

    // MARK: Reads

    /// The node at `path` (with `priority`, its priority as a node) as it is now, if `auth` may
    /// read `path` with `query`. The query is only checked, not applied (see `query`).
    func get(
        _ path: DatabasePath, priority: Bool = false, query: DatabaseQueryParams = .all, in namespace: DatabaseNamespace,
        auth: DatabaseAuth
    ) throws(DatabaseFailure) -> DatabaseNode {
        let data = namespace.head
        guard namespace.rules.mayRead(path, query: query, auth: auth, now: now(), data: data) else {
            throw .permissionDenied
        }
        let node = data.node(at: path)
        return priority ? DatabaseNode.fromPriority(node.priority) : node
    }

    /// What `query` selects at `path` now (the whole node for `.all`), if `auth` may read it.
    func query(_ path: DatabasePath, _ query: DatabaseQueryParams, in namespace: DatabaseNamespace, auth: DatabaseAuth)
        throws(DatabaseFailure) -> DatabaseNode
    {
        query.apply(to: try get(path, query: query, in: namespace, auth: auth))
    }

    /// Throws unless `auth` may read `path` with `query` in `data` (the head when nil).
    func checkRead(
        _ path: DatabasePath, query: DatabaseQueryParams, in namespace: DatabaseNamespace, auth: DatabaseAuth,
        data: DatabaseSnapshotSource? = nil
    ) throws(DatabaseFailure) {
        guard namespace.rules.mayRead(path, query: query, auth: auth, now: now(), data: data ?? namespace.head) else {
            throw .permissionDenied
        }
    }

    /// Opens an event stream at `path` (after `checkRead`): its first `put /` goes to `writer`
    /// now, then one event per commit that touches the location.
    func openStream(
        _ path: DatabasePath, query: DatabaseQueryParams, in namespace: DatabaseNamespace, auth: DatabaseAuth,
        writer: any HTTPStreamWriter
    ) {
        namespace.openStream(path: path, query: query, auth: auth, writer: writer)
    }

    // MARK: Rules

    /// Installs the rules file `source` for `namespace`: streams and listens the new rules
    /// refuse are cancelled. A file that does not compile changes nothing.
    func setRules(_ source: [UInt8], namespace: String) throws(DatabaseRulesCompileError) {
        switch store.compileRules(source) {
        case .success(let rules): store.namespace(namespace).setRules(rules)
        case .failure(let error): throw error
        }
    }
}
