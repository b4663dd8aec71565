import EmulatorHTTP
import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import EmulatorStorage
import EmulatorSupport
import EmulatorTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreEmulator

/// Pessimistic transactions through the REST and gRPC routers: waits, wound-wait, timeouts,
/// expiry and cancellation, each ending with no lock left behind.
@Suite struct TransactionLockTests {
    static func client(
        lockTimeout: Int64 = 30_000_000, lifetime: Int64 = 270_000_000, idleLifetime: Int64 = 60_000_000
    ) -> FirestoreTestClient {
        FirestoreTestClient(
            service: FirestoreService(
                store: DocumentStore(engine: StorageEngine()), transactionLifetime: lifetime,
                transactionIdleLifetime: idleLifetime, lockTimeout: lockTimeout))
    }

    static func begin(_ c: FirestoreTestClient) -> String {
        c.post(":beginTransaction", "{}").json[member: "transaction"]?.string ?? ""
    }

    static func read(_ c: FirestoreTestClient, _ path: String, _ t: String) -> FirestoreTestClient.Response {
        c.post(":batchGet", #"{"documents":["\#(c.name(path))"],"transaction":"\#(t)"}"#)
    }

    static func n(_ c: FirestoreTestClient, _ path: String) -> String? {
        c.send(.get, "/v1/\(c.name(path))").json[member: "fields"]?[member: "n"]?[member: "integerValue"]?.string
    }

    static func setN(_ path: String, _ value: Int) -> (String, String) { (path, #"{"n":{"integerValue":"\#(value)"}}"#) }

    /// Runs `body` on its own thread; the box holds its result once done.
    final class Background<R: Sendable>: Sendable {
        let result = Watched<R?>(nil)
        init(_ body: @escaping @Sendable () -> R) {
            Thread { [self] in
                let r = body()
                self.result.update { $0 = r }
            }.start()
        }
        var value: R? { result.current }
        func wait(seconds: Double = 10) -> R? {
            result.wait(seconds: seconds) { $0 != nil }
            return result.current
        }
    }

    static func settle(_ c: FirestoreTestClient) -> LockTable {
        // Resumed requests run on Dispatch's queue; give them a moment.
        for _ in 0..<500 {
            let table = c.emulator.service.transactions.snapshot()
            if !table.hasWaiters { return table }
            usleep(2_000)
        }
        return c.emulator.service.transactions.snapshot()
    }

    @Test func aWriteWaitsForTheTransactionThatReadTheDocument() {
        let c = Self.client()
        c.set([Self.setN("acct/a", 1)])
        let t = Self.begin(c)
        #expect(Self.read(c, "acct/a", t).json.array?.first?[member: "found"] != nil)
        let write = Background { c.set([Self.setN("acct/a", 100)]).status }
        usleep(100_000)
        #expect(write.value == nil)  // parked, not failed
        let commit = c.post(":commit", #"{"transaction":"\#(t)","writes":[{"update":{"name":"\#(c.name("acct/a"))","fields":{"n":{"integerValue":"2"}}}}]}"#)
        #expect(commit.status == 200)
        #expect(write.wait() == 200)
        #expect(Self.n(c, "acct/a") == "100")  // the write went after the transaction
        #expect(Self.settle(c).isIdle)
    }

    @Test func theOlderTransactionWinsAndTheYoungerIsAborted() {
        let c = Self.client()
        c.set([Self.setN("acct/a", 1)])
        let older = Self.begin(c)
        let younger = Self.begin(c)
        #expect(Self.read(c, "acct/a", older).status == 200)
        #expect(Self.read(c, "acct/a", younger).status == 200)
        let update = { @Sendable (t: String, v: Int) in
            #"{"transaction":"\#(t)","writes":[{"update":{"name":"\#(c.name("acct/a"))","fields":{"n":{"integerValue":"\#(v)"}}}}]}"#
        }
        // The younger commit waits for the older reader...
        let youngCommit = Background { c.post(":commit", update(younger, 20)) }
        usleep(100_000)
        #expect(youngCommit.value == nil)
        // ...the older commit wounds it and goes through.
        #expect(c.post(":commit", update(older, 10)).status == 200)
        let aborted = youngCommit.wait()
        #expect(aborted?.status == 409)
        #expect(aborted?.json.errorStatus == "ABORTED")
        #expect(aborted?.json.errorMessage == "Too much contention on these documents. Please try again.")
        #expect(c.post(":rollback", #"{"transaction":"\#(younger)"}"#).status == 200)
        #expect(Self.n(c, "acct/a") == "10")
        #expect(Self.settle(c).isIdle)
    }

    @Test func aLockWaitTimesOut() {
        let c = Self.client(lockTimeout: 150_000)
        c.set([Self.setN("acct/a", 1)])
        let t = Self.begin(c)
        #expect(Self.read(c, "acct/a", t).status == 200)
        let started = Date()
        let write = c.set([Self.setN("acct/a", 100)])
        #expect(Date().timeIntervalSince(started) >= 0.1)
        #expect(write.json.errorStatus == "ABORTED")
        #expect(write.json.errorMessage == "Transaction lock timeout.")
        // The transaction still holds its lock and commits.
        #expect(c.post(":commit", #"{"transaction":"\#(t)"}"#).status == 200)
        #expect(Self.n(c, "acct/a") == "1")
        #expect(Self.settle(c).isIdle)
    }

    /// A transaction past its lifetime, or (a client that went away mid-transaction) idle past
    /// its idle lifetime (production: 270 s and 60 s), has its locks released: the waiting write
    /// goes through, and the transaction is gone.
    @Test(arguments: [(lifetime: Int64(200_000), idle: Int64(60_000_000)), (lifetime: 270_000_000, idle: 300_000)])
    func anExpiredTransactionReleasesItsLocks(lifetime: Int64, idle: Int64) {
        let c = Self.client(lifetime: lifetime, idleLifetime: idle)
        c.set([Self.setN("acct/a", 1)])
        let t = Self.begin(c)
        #expect(Self.read(c, "acct/a", t).status == 200)
        let started = Date()
        #expect(c.set([Self.setN("acct/a", 5)]).status == 200)  // waits until the transaction expires
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(Self.n(c, "acct/a") == "5")
        #expect(c.post(":commit", #"{"transaction":"\#(t)"}"#).json.errorStatus == "INVALID_ARGUMENT")
        #expect(c.post(":rollback", #"{"transaction":"\#(t)"}"#).status == 200)
        #expect(Self.settle(c).isIdle)
    }

    /// Each request naming a transaction restarts its idle time; the lifetime still ends it.
    @Test func aTransactionIdlesOutOnlyWithoutRequests() throws {
        let now = Atomic<Int64>(0)
        let registry = TransactionRegistry(lifetime: 270_000_000, idleLifetime: 60_000_000, clock: { now.load(ordering: .relaxed) })
        let db = DatabaseID(project: "p", database: "(default)")
        let used = registry.begin(db, mode: .readWrite(pessimistic: true), now: 0)
        let idle = registry.begin(db, mode: .readWrite(pessimistic: true), now: 0)
        for second: Int64 in stride(from: 50, through: 250, by: 50) {
            _ = try registry.entry(used, database: db, now: second * 1_000_000)
        }
        #expect(registry.isOpen(used))
        #expect(throws: EmulatorError.self) { try registry.entry(idle, database: db, now: 250_000_000) }
        #expect(!registry.isOpen(idle))
        #expect(throws: EmulatorError.self) { try registry.entry(used, database: db, now: 270_000_000) }
        #expect(!registry.isOpen(used))
        // An ended transaction's rollback answers OK, as for any that expired.
        try registry.rollback(idle, database: db, now: 270_000_000)
    }

    /// The transport drops a waiting request when its connection closes (it cancels the
    /// deferred response): the wait is withdrawn and the write it carried never happens.
    @Test func aClosedConnectionWithdrawsItsWait() {
        let c = Self.client()
        c.set([Self.setN("acct/a", 1)])
        let t = Self.begin(c)
        #expect(Self.read(c, "acct/a", t).status == 200)
        let body = #"{"writes":[{"update":{"name":"\#(c.name("acct/a"))","fields":{"n":{"integerValue":"7"}}}}]}"#
        let request = HTTPRequest(method: .post, target: "/v1/\(c.root):commit", body: Array(body.utf8))
        let response = c.emulator.router.respond(to: request)
        guard case .deferred(let deferred) = response.body else {
            Issue.record("the write did not wait")
            return
        }
        #expect(c.emulator.service.transactions.snapshot().hasWaiters)
        deferred.cancel()  // what the transport does when the connection closes
        #expect(!c.emulator.service.transactions.snapshot().hasWaiters)
        #expect(c.post(":rollback", #"{"transaction":"\#(t)"}"#).status == 200)
        #expect(Self.settle(c).isIdle)
        #expect(Self.n(c, "acct/a") == "1")
    }

    /// A read that began its transaction (`newTransaction`) parks; its client goes away before
    /// it learnt the id: the transaction is rolled back, so its locks do not outlive the request.
    @Test func aCancelledNewTransactionReadRollsItsTransactionBack() {
        let c = Self.client()
        c.set([Self.setN("acct/a", 1), Self.setN("acct/b", 1)])
        // The holder reads b; a write of b waits for it; a younger read of a and b then queues
        // behind that older write.
        let holder = Self.begin(c)
        #expect(Self.read(c, "acct/b", holder).status == 200)
        let writer = Background { c.set([Self.setN("acct/b", 5)]).status }  // waits for holder
        usleep(100_000)
        let body = #"{"documents":["\#(c.name("acct/a"))","\#(c.name("acct/b"))"],"newTransaction":{"readWrite":{}}}"#
        let response = c.emulator.router.respond(to: HTTPRequest(method: .post, target: "/v1/\(c.root):batchGet", body: Array(body.utf8)))
        guard case .deferred(let deferred) = response.body else {
            Issue.record("the read did not wait")
            return
        }
        deferred.cancel()
        // Only the holder and the writer are left (the read's transaction is gone): nobody holds a.
        let table = c.emulator.service.transactions.snapshot()
        #expect(!table.owners.values.contains { $0.held.keys.contains { $0.path.segments.last == "a" } })
        #expect(table.owners.count == 2)
        #expect(c.post(":rollback", #"{"transaction":"\#(holder)"}"#).status == 200)
        #expect(writer.wait() == 200)
        #expect(Self.settle(c).isIdle)
    }

    @Test func aTransactionOfAnotherDatabaseIsInvalid() {
        let c = Self.client()
        let t = Self.begin(c)
        let other = "/v1/projects/demo/databases/other/documents"
        for method in [":commit", ":rollback"] {
            let r = c.send(.post, other + method, #"{"transaction":"\#(t)"}"#)
            #expect(r.json.errorStatus == "INVALID_ARGUMENT")
            #expect(r.json.errorMessage == "The referenced transaction has expired or is no longer valid.")
        }
        let read = c.send(.post, other + ":batchGet", #"{"documents":["projects/demo/databases/other/documents/a/b"],"transaction":"\#(t)"}"#)
        #expect(read.json.errorStatus == "INVALID_ARGUMENT")
        // Still open in its own database.
        #expect(c.post(":commit", #"{"transaction":"\#(t)"}"#).status == 200)
    }

    @Test func readOnlyTransactionsAndReadTimeReadsNeverLock() {
        let c = Self.client(lockTimeout: 100_000)
        c.set([Self.setN("acct/a", 1)])
        let ro = c.post(":beginTransaction", #"{"options":{"readOnly":{}}}"#).json[member: "transaction"]?.string ?? ""
        #expect(Self.read(c, "acct/a", ro).status == 200)
        #expect(c.set([Self.setN("acct/a", 2)]).status == 200)
        #expect(Self.settle(c).isIdle)
    }

    @Test func queryResultsAreLocked() {
        let c = Self.client()
        c.set([Self.setN("acct/a", 1), Self.setN("acct/b", 2)])
        let t = Self.begin(c)
        let q = c.post(":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"acct"}]},"transaction":"\#(t)"}"#)
        #expect(q.json.array?.count == 2)
        let table = c.emulator.service.transactions.snapshot()
        #expect(table.owners.values.first?.held.count == 2)
        let write = Background { c.set([Self.setN("acct/b", 9)]).status }
        usleep(100_000)
        #expect(write.value == nil)
        #expect(c.post(":commit", #"{"transaction":"\#(t)"}"#).status == 200)
        #expect(write.wait() == 200)
        #expect(Self.settle(c).isIdle)
    }

    // MARK: gRPC

    @Test func grpcCommitWaitsAndACancelledCallLeavesNoWait() throws {
        let service = FirestoreService(store: DocumentStore(engine: StorageEngine()))
        let client = GRPCTestClient(service: service)
        client.set([("c/a", ValueMap())])
        let begun = try client.unary("BeginTransaction") { $0.string(1, client.database) }.get()
        let t = try GRPCTestClient.fields(begun).first?.1 ?? []
        let read = client.stream("BatchGetDocuments") { w in
            w.string(1, client.database)
            w.string(2, client.root + "/c/a")
            w.bytes(4, t)
        }
        #expect(read.status.code == 0)
        let commit = { (w: inout ProtoWriter) in
            w.string(1, client.database)
            w.message(2) { $0.message(1) { ProtoDocument(name: client.root + "/c/a", fields: ValueMap()).write(to: &$0) } }
        }
        // A plain commit waits, then its client resets the call: the wait goes.
        let waiting = client.start("Commit", commit)
        #expect(waiting.status == nil)
        #expect(service.transactions.snapshot().hasWaiters)
        waiting.cancel()
        #expect(!service.transactions.snapshot().hasWaiters)
        // Another one waits and goes through once the transaction commits.
        let second = client.start("Commit", commit)
        #expect(second.status == nil)
        _ = try client.unary("Commit") { w in
            w.string(1, client.database)
            w.bytes(3, t)
        }.get()
        second.wait()
        #expect(second.status?.code == 0)
        #expect(service.transactions.snapshot().isIdle)
    }
}

/// The mobile/web SDKs' Write stream: a commit waits for a transaction's lock like any write,
/// and the requests after it keep their order.
@Suite struct WriteStreamLockTests {
    final class Events: WriteEventSink {
        let state = Watched<(commits: [Int64?], finished: Bool)>(([], false))
        func send(_ event: WriteEvent) {
            if case .committed(_, _, let time) = event { state.update { $0.commits.append(time) } }
        }
        func finish(_ error: EmulatorError?) { state.update { $0.finished = true } }
        var commits: Int { state.current.commits.count }
    }

    @Test func aStreamCommitWaitsAndLaterRequestsQueueBehindIt() throws {
        let c = TransactionLockTests.client()
        c.set([TransactionLockTests.setN("acct/a", 1)])
        let t = TransactionLockTests.begin(c)
        #expect(TransactionLockTests.read(c, "acct/a", t).status == 200)
        let events = Events()
        let stream = WriteStream(service: c.emulator.service, caller: .owner, sink: events)
        let database = "projects/demo/databases/(default)"
        stream.receive { WriteRequest(database: database, writes: [], hasToken: false) }
        let write = { (path: String, n: Int64) throws -> WriteRequest in
            let name = try DocumentName.document("\(database)/documents/\(path)")
            return WriteRequest(database: "", writes: [Write(.update(name, fields: ["n": .integer(n)], mask: nil))], hasToken: true)
        }
        let first = try write("acct/a", 7)
        let second = try write("acct/b", 8)
        stream.receive { first }
        stream.receive { second }
        #expect(events.commits == 0)  // the first waits for the lock, the second behind it
        #expect(c.post(":commit", #"{"transaction":"\#(t)"}"#).status == 200)
        events.state.wait(seconds: 2) { $0.commits.count >= 2 }
        #expect(events.commits == 2)
        #expect(TransactionLockTests.n(c, "acct/a") == "7")
        #expect(TransactionLockTests.n(c, "acct/b") == "8")
        #expect(TransactionLockTests.settle(c).isIdle)
    }

    /// The stream dies (its gRPC call is cancelled, its WebChannel session closes) while its
    /// commit waits for a lock: the wait is withdrawn, nothing it sent lands, no lock is left.
    @Test func aStreamThatDiesWhileItsCommitWaitsLeavesNoWaitAndWritesNothing() throws {
        let c = TransactionLockTests.client()
        c.set([TransactionLockTests.setN("acct/a", 1)])
        let t = TransactionLockTests.begin(c)
        #expect(TransactionLockTests.read(c, "acct/a", t).status == 200)
        let writer = CollectingWriter()
        let call = FirestoreWriteCall(service: c.emulator.service, caller: .owner, writer: writer)
        let database = "projects/demo/databases/(default)"
        var handshake = ProtoWriter()
        handshake.string(1, database)
        call.received(handshake.bytes)
        func write(_ path: String, _ n: Int64) -> [UInt8] {
            var w = ProtoWriter()
            w.message(3) { $0.message(1) { ProtoDocument(name: "\(database)/documents/\(path)", fields: ["n": .integer(n)]).write(to: &$0) } }
            w.bytes(4, [1])
            return w.bytes
        }
        call.received(write("acct/a", 7))
        call.received(write("acct/b", 8))
        #expect(c.emulator.service.transactions.snapshot().hasWaiters)
        call.cancelled()
        #expect(!c.emulator.service.transactions.snapshot().hasWaiters)
        #expect(c.post(":commit", #"{"transaction":"\#(t)"}"#).status == 200)
        #expect(TransactionLockTests.settle(c).isIdle)
        #expect(TransactionLockTests.n(c, "acct/a") == "1")
        #expect(c.send(.get, "/v1/\(c.name("acct/b"))").status == 404)
    }
}
