import EmulatorHTTP
import EmulatorSupport
import EmulatorTestSupport
import Foundation
import Synchronization
import Testing

@Suite struct TransactionTests {
    func begin(_ c: FirestoreTestClient, _ options: String = "{}") -> String {
        c.post(":beginTransaction", options).json[member: "transaction"]?.string ?? ""
    }

    /// An OPTIMISTIC transaction locks nothing: a write lands at once and the commit aborts.
    /// (Pessimistic transactions, the default, make that write wait: TransactionLockTests.)
    @Test func conflictingCommitAbortsAndWritesNothing() {
        let c = FirestoreTestClient()
        c.set([("acct/a", #"{"n":{"integerValue":"1"}}"#)])
        let t = begin(c, #"{"options":{"readWrite":{"concurrencyMode":"OPTIMISTIC"}}}"#)
        let read = c.post(":batchGet", #"{"documents":["\#(c.name("acct/a"))"],"transaction":"\#(t)"}"#)
        #expect(read.json.array?.first?[member: "found"] != nil)
        c.set([("acct/a", #"{"n":{"integerValue":"5"}}"#)])
        let commit = c.post(":commit", #"{"transaction":"\#(t)","writes":[{"update":{"name":"\#(c.name("acct/a"))","fields":{"n":{"integerValue":"2"}}}}]}"#)
        #expect(commit.status == 409)
        #expect(commit.json.errorStatus == "ABORTED")
        #expect(commit.json.errorMessage?.hasPrefix("Transaction lock timeout.") == true)
        let now = c.send(.get, "/v1/\(c.name("acct/a"))")
        #expect(now.json[member: "fields"]?[member: "n"]?[member: "integerValue"]?.string == "5")
        // The transaction is over: its id is no longer valid.
        let again = c.post(":commit", #"{"transaction":"\#(t)"}"#)
        #expect(again.json.errorStatus == "INVALID_ARGUMENT")
        #expect(again.json.errorMessage == "The referenced transaction has expired or is no longer valid.")
    }

    @Test func queryReadsDetectPhantoms() {
        let c = FirestoreTestClient()
        c.set([("acct/a", #"{"n":{"integerValue":"1"}}"#)])
        let t = begin(c)
        let q = c.post(":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"acct"}]},"transaction":"\#(t)"}"#)
        #expect(q.json.array?.count == 1)
        c.set([("acct/b", #"{"n":{"integerValue":"1"}}"#)])
        let commit = c.post(":commit", #"{"transaction":"\#(t)","writes":[{"delete":"\#(c.name("acct/a"))"}]}"#)
        #expect(commit.json.errorStatus == "ABORTED")
    }

    /// Rollback ends the transaction; rolling back one that already ended answers OK (the
    /// clients roll back after an ABORTED commit), an id never issued is INVALID_ARGUMENT.
    @Test func rollbackEndsTheTransaction() {
        let c = FirestoreTestClient()
        let t = begin(c)
        #expect(c.post(":rollback", #"{"transaction":"\#(t)"}"#).status == 200)
        #expect(c.post(":rollback", #"{"transaction":"\#(t)"}"#).status == 200)
        #expect(c.post(":commit", #"{"transaction":"\#(t)"}"#).json.errorStatus == "INVALID_ARGUMENT")
        let committed = begin(c)
        #expect(c.post(":commit", #"{"transaction":"\#(committed)"}"#).status == 200)
        #expect(c.post(":rollback", #"{"transaction":"\#(committed)"}"#).status == 200)
        #expect(c.post(":rollback", #"{"transaction":"AAAA"}"#).json.errorStatus == "INVALID_ARGUMENT")
    }

    @Test func newTransactionInRunQueryAnswersTheIdFirst() {
        let c = FirestoreTestClient()
        c.set([("acct/a", "{}")])
        let r = c.post(":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"acct"}]},"newTransaction":{"readWrite":{}}}"#)
        let items = r.json.array ?? []
        #expect(items.count == 2)
        let t = items.first?[member: "transaction"]?.string ?? ""
        #expect(!t.isEmpty)
        #expect(items.first?[member: "document"] == nil)
        #expect(c.post(":commit", #"{"transaction":"\#(t)","writes":[]}"#).status == 200)
    }

    @Test func readOnlyTransactionReadsItsSnapshotAndCannotWrite() {
        let c = FirestoreTestClient()
        c.set([("acct/a", #"{"n":{"integerValue":"1"}}"#)])
        let t = begin(c, #"{"options":{"readOnly":{}}}"#)
        c.set([("acct/a", #"{"n":{"integerValue":"2"}}"#)])
        let got = c.send(.get, "/v1/\(c.name("acct/a"))?transaction=\(t.replacingPlus)")
        #expect(got.json[member: "fields"]?[member: "n"]?[member: "integerValue"]?.string == "1")
        let write = c.post(":commit", #"{"transaction":"\#(t)","writes":[{"delete":"\#(c.name("acct/a"))"}]}"#)
        #expect(write.json.errorStatus == "INVALID_ARGUMENT")
    }

    @Test func readTimeReadsSeeThePast() {
        let c = FirestoreTestClient()
        let first = c.set([("p/a", #"{"n":{"integerValue":"1"}}"#)])
        let t1 = first.json[member: "commitTime"]?.string ?? ""
        c.set([("p/a", #"{"n":{"integerValue":"2"}}"#), ("p/b", "{}"), ("newcoll/x", "{}")])
        let old = c.send(.get, "/v1/\(c.name("p/a"))?readTime=\(t1)")
        #expect(old.json[member: "fields"]?[member: "n"]?[member: "integerValue"]?.string == "1")
        let query = c.post(":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"p"}]},"readTime":"\#(t1)"}"#)
        #expect(query.json.array?.count == 1)
        #expect(query.json.array?.first?[member: "readTime"]?.string == t1)
        let count = c.post(":runAggregationQuery", #"{"structuredAggregationQuery":{"structuredQuery":{"from":[{"collectionId":"p"}]},"aggregations":[{"alias":"n","count":{}}]},"readTime":"\#(t1)"}"#)
        #expect(count.json.array?.first?[member: "result"]?[member: "aggregateFields"]?[member: "n"]?[member: "integerValue"]?.string == "1")
        let ids = c.post(":listCollectionIds", #"{"readTime":"\#(t1)"}"#)
        #expect(ids.json[member: "collectionIds"]?.array?.compactMap(\.string) == ["p"])
        let future = c.send(.get, "/v1/\(c.name("p/a"))?readTime=9999-01-01T00:00:00Z")
        #expect(future.json.errorStatus == "INVALID_ARGUMENT")
    }

    /// 16 clients (threads) increment one counter in read-write transactions, retrying on
    /// ABORTED as the SDKs do (keeping their age through `retryTransaction`). Conflicting commits
    /// wait; the younger of two contenders is aborted, so everyone finishes in a few attempts.
    @Test func sixteenContendingTransactionsAllComplete() {
        let c = FirestoreTestClient()
        c.set([("ctr/x", #"{"n":{"integerValue":"0"}}"#)])
        let name = c.name("ctr/x")
        let tries = Watched<[Int?]>([])
        let threads = (0..<16).map { _ in
            Thread {
                var retry = ""
                for attempt in 1...16 {
                    let options = retry.isEmpty ? "{}" : #"{"options":{"readWrite":{"retryTransaction":"\#(retry)"}}}"#
                    let t = c.post(":beginTransaction", options).json[member: "transaction"]?.string ?? ""
                    if retry.isEmpty { retry = t }
                    let got = c.post(":batchGet", #"{"documents":["\#(name)"],"transaction":"\#(t)"}"#)
                    guard let found = got.json.array?.first?[member: "found"] else {
                        #expect(got.json.errorStatus == "ABORTED")
                        _ = c.post(":rollback", #"{"transaction":"\#(t)"}"#)
                        continue
                    }
                    let n = Int(found[member: "fields"]?[member: "n"]?[member: "integerValue"]?.string ?? "") ?? -1
                    let r = c.post(":commit", #"{"transaction":"\#(t)","writes":[{"update":{"name":"\#(name)","fields":{"n":{"integerValue":"\#(n + 1)"}}}}]}"#)
                    if r.status == 200 { return tries.update { $0.append(attempt) } }
                    if r.json.errorStatus != "ABORTED" { break }
                    #expect(c.post(":rollback", #"{"transaction":"\#(t)"}"#).status == 200)
                }
                tries.update { $0.append(nil) }
            }
        }
        for t in threads { t.start() }
        #expect(tries.wait(seconds: 60) { $0.count == 16 })
        #expect(tries.current.allSatisfy { $0 != nil })
        let final = c.send(.get, "/v1/\(name)").json[member: "fields"]?[member: "n"]?[member: "integerValue"]?.string
        #expect(final == "16")
    }
}
