@testable import DatabaseEmulator
import EmulatorHTTP
import EmulatorModel
import EmulatorStorage
import EmulatorSupport
import Testing

/// Namespace names are checked where they enter (`?ns=` on REST, `.settings` and `/.ws`): a
/// name that is no database name would become a file name in every later export.
@Suite struct NamespaceNameTests {
    @Test(arguments: ["a", "demo-default-rtdb", "Localhost", "x-1", String(repeating: "n", count: 63)])
    func validNames(name: String) {
        #expect(DatabaseNamespaceName.problem(name) == nil)
        let db = DatabaseTestClient()
        #expect(db.put("/x.json?ns=\(name)", "1").status.code == 200)
        #expect(db.value("/x.json?ns=\(name)") == j("1"))
    }

    @Test(arguments: ["a%2Fb", ".", "..", "a%00b", "a.b", "a_b", "sp%20ace", "%C3%A9", String(repeating: "n", count: 64)])
    func invalidNamesAre400AndStoreNothing(encoded: String) throws {
        let db = DatabaseTestClient()
        let response = db.put("/x.json?ns=\(encoded)", "1")
        #expect(response.status.code == 400)
        let message = try #require(errorText(response))
        #expect(message.hasPrefix("Invalid namespace \""))
        #expect(message.hasSuffix("a database name is 1 to 63 letters, digits or hyphens"))
        #expect(db.get("/x.json?ns=\(encoded)").status.code == 400)
        #expect(db.send(.put, "/.settings/rules.json?ns=\(encoded)", "{}", headers: DatabaseTestClient.owner).status.code == 400)
        #expect(db.send(.get, "/.ws?v=5&ns=\(encoded)").status.code == 400)
        let names = try db.storage.snapshot().namespaces.map(\.name)
        #expect(names.allSatisfy { !$0.hasPrefix("database/") || DatabaseNamespaceName.isValid($0.dropFirst(9)) }, "\(names)")
    }

    /// Reads make namespaces known only up to a bound: past it, a read of a new name that holds
    /// no data keeps nothing, while writes, streams and names holding data are kept as before.
    @Test func readsOfUnknownNamespacesAreKeptOnlyUpToABound() throws {
        let engine = StorageEngine()
        let store = DatabaseStore(engine: engine, rulesLogger: nil, namespacesKeptForReads: 5, now: { 0 })
        for n in 0..<200 {
            let namespace = store.namespaceForReading("unknown-\(n)")
            #expect(namespace.head.node(at: .root).isEmpty)
        }
        #expect(store.all.count == 5)
        #expect(store.existingNamespace("unknown-4") != nil)
        #expect(store.existingNamespace("unknown-5") == nil)
        // Writes are kept whatever the count, and so is a name holding data when it is read.
        store.namespace("written").commit { _, _ in .set(DatabasePath(keys: ["x"]), .leaf(.int(5))) }
        #expect(store.all.count == 6)
        let restarted = DatabaseStore(engine: engine, rulesLogger: nil, namespacesKeptForReads: 0, now: { 0 })
        #expect(restarted.namespaceForReading("written").head.node(at: DatabasePath(keys: ["x"])) == .leaf(.int(5)))
        #expect(restarted.existingNamespace("written") != nil)
        _ = restarted.namespaceForReading("unknown-0")
        #expect(restarted.all.count == 1)
    }

    /// WebSocket and long-poll connections make their namespace known as reads do, up to the same
    /// bound: past it, a new name holding no data is known while connected and gone once the
    /// last connection ends, unless something was written to it.
    @Test func connectionsToUnknownNamespacesAreKeptOnlyUpToABound() throws {
        var configuration = DatabaseEmulatorConfiguration(keepAliveSeconds: nil)
        configuration.namespacesKeptForReads = 3
        let emulator = DatabaseEmulator(storage: StorageEngine(), configuration: configuration)
        let client = InProcessClient(router: emulator.router)
        let store = emulator.service.store
        for n in 0..<100 {  // long-polling: a start, then the disconnect
            let start = LongPollAnswer(String(decoding: client.get("/.lp?start=t&ser=1&cb=1&v=5&ns=lp-\(n)").bodyBytes, as: UTF8.self))
            let (id, password) = try #require(start.start)
            #expect(store.existingNamespace("lp-\(n)") != nil)
            #expect(client.get("/.lp?disconn=t&id=\(id)&pw=\(password)").status == .ok)
        }
        for n in 0..<100 {  // the WebSocket's session
            let session = emulator.wireSession(namespace: "ws-\(n)", host: "localhost", output: { _ in })
            #expect(store.existingNamespace("ws-\(n)") != nil)
            session.closed()
        }
        #expect(store.all.map(\.name).sorted() == ["lp-0", "lp-1", "lp-2"])
        let listed = try JSONReader.parse(client.get("/.inspect/databases.json").bodyBytes)
        #expect(listed == j(#"[{"name":"lp-0"},{"name":"lp-1"},{"name":"lp-2"}]"#))

        // Two connections share one namespace, kept until the last ends.
        let first = emulator.wireSession(namespace: "shared", host: "localhost", output: { _ in })
        let second = emulator.wireSession(namespace: "shared", host: "localhost", output: { _ in })
        #expect(first.namespace === second.namespace)
        first.closed()
        #expect(store.existingNamespace("shared") === second.namespace)
        second.closed()
        #expect(store.existingNamespace("shared") == nil)

        // Written to through the connection (an onDisconnect write here): kept.
        let writer = emulator.wireSession(namespace: "written", host: "localhost", output: { _ in })
        writer.receive(message: #"{"t":"d","d":{"r":1,"a":"o","b":{"p":"/x","d":1}}}"#)
        writer.closed()
        #expect(store.existingNamespace("written") != nil)
        // A REST write meets the connection's namespace, and keeps it.
        let listener = emulator.wireSession(namespace: "rest", host: "localhost", output: { _ in })
        #expect(client.put("/x.json?ns=rest", body: "1", headers: [("Authorization", "Bearer owner")]).status == .ok)
        #expect(store.existingNamespace("rest") === listener.namespace)
        listener.closed()
        #expect(store.existingNamespace("rest") != nil)
        #expect(store.all.count == 5)
    }

    /// An event stream (`Accept: text/event-stream`) is a connection too: past the bound, a new
    /// name holding no data is known while a stream is open on it and gone once the last one
    /// closed, unless something was written to it.
    @Test func eventStreamsToUnknownNamespacesAreKeptOnlyUpToABound() throws {
        var configuration = DatabaseEmulatorConfiguration(keepAliveSeconds: nil)
        configuration.namespacesKeptForReads = 3
        let emulator = DatabaseEmulator(storage: StorageEngine(), configuration: configuration)
        let client = InProcessClient(router: emulator.router)
        let store = emulator.service.store
        let sse = [("Accept", "text/event-stream")]
        for n in 0..<100 {
            let stream = client.stream("/x.json?ns=sse-\(n)", headers: sse)
            #expect(stream.status == .ok)
            #expect(store.existingNamespace("sse-\(n)") != nil)
            stream.writer.close()
        }
        #expect(store.all.map(\.name).sorted() == ["sse-0", "sse-1", "sse-2"])

        // Two streams share one namespace, kept until the last closes; a write through the
        // REST API meets it.
        let first = client.stream("/a.json?ns=shared", headers: sse)
        let second = client.stream("/b.json?ns=shared", headers: sse)
        let namespace = try #require(store.existingNamespace("shared"))
        first.writer.close()
        #expect(store.existingNamespace("shared") === namespace)
        second.writer.close()
        #expect(store.existingNamespace("shared") == nil)
        let listener = client.stream("/x.json?ns=written", headers: sse)
        #expect(client.put("/x.json?ns=written", body: "1", headers: [("Authorization", "Bearer owner")]).status == .ok)
        listener.writer.close()
        #expect(store.existingNamespace("written") != nil)
        #expect(listener.writer.text.contains(#""data":1"#))
        #expect(store.all.count == 4)

        // An answer whose connection closed before it started (the transport never starts its
        // stream) makes no namespace known.
        for n in 0..<10 {
            let response = client.send(HTTPRequest(method: .get, target: "/x.json?ns=unstarted-\(n)", headers: HTTPHeaders(sse)))
            guard case .stream = response.body else {
                Issue.record("no event stream")
                return
            }
        }
        #expect(store.all.count == 4)
    }

    @Test func controlCharactersAreEscapedInTheMessage() {
        #expect(
            DatabaseNamespaceName.problem("a\u{0}\"b")
                == #"Invalid namespace "a\u0000\"b": a database name is 1 to 63 letters, digits or hyphens"#)
    }

    /// A `Host` whose first label is no namespace name (a container called `emulator_1`) falls
    /// back to the default namespace instead of failing every request.
    @Test func hostLabelThatIsNoNameUsesTheDefaultNamespace() {
        let db = DatabaseTestClient()
        #expect(db.put("/x.json", "7", headers: [("Host", "emulator_1:9000")]).status.code == 200)
        #expect(db.value("/x.json?ns=demo-default-rtdb") == j("7"))
        #expect(db.put("/y.json", "8", headers: [("Host", "other.localhost:9000")]).status.code == 200)
        #expect(db.value("/y.json?ns=other") == j("8"))
    }
}
