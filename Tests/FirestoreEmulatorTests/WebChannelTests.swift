import EmulatorHTTP
import EmulatorSupport
import Testing

@testable import FirestoreEmulator

/// The Firestore Listen and Write streams over WebChannel, through the emulator's router.
@Suite("Firestore over WebChannel")
struct WebChannelTests {
    static let listen = "/google.firestore.v1.Firestore/Listen/channel"
    static let write = "/google.firestore.v1.Firestore/Write/channel"

    static func form(ofs: Int, _ messages: [String], headers: String? = nil) -> String {
        var parts = ["count=\(messages.count)", "ofs=\(ofs)"]
        if let headers { parts.insert("headers=\(PercentEncoding.encode(headers))", at: 0) }
        for (i, m) in messages.enumerated() { parts.append("req\(i)___data__=\(PercentEncoding.encode(m))") }
        return parts.joined(separator: "&")
    }

    /// A session on one channel path of `c`'s emulator.
    struct Session {
        let http: InProcessClient
        let path: String
        let sid: String

        init(_ c: FirestoreTestClient, _ path: String, _ messages: [String], headers: String? = nil) throws {
            http = InProcessClient(router: c.emulator.router)
            self.path = path
            let response = http.post("\(path)?VER=8&database=projects%2F\(c.project)%2Fdatabases%2F(default)&RID=1&CVER=22&t=1",
                body: WebChannelTests.form(ofs: 0, messages, headers: headers))
            #expect(response.status == .ok)
            let frames = try #require(WebChannelFrame.split(response.bodyBytes))
            guard case .array(let items) = try JSONReader.parse(try #require(frames.first)), case .array(let first)? = items.first,
                first.count == 2, case .array(let reply) = first[1], reply.count == 6, case .string(let sid) = reply[1]
            else { throw SessionError.noSession(response.bodyText) }
            #expect(reply[0] == .string("c"))
            #expect(reply[3] == .int(8))
            self.sid = sid
        }

        enum SessionError: Error { case noSession(String), timeout([JSONValue]) }

        func backChannel(aid: Int = 0) -> InProcessClient.StreamedResponse {
            http.stream("\(path)?VER=8&RID=rpc&SID=\(sid)&AID=\(aid)&CI=0&TYPE=xmlhttp&t=1")
        }

        /// Runs the Listen stream's re-evaluation now, as its worker would after a commit (the
        /// worker task may wait for a thread while the whole test suite runs).
        func refresh(_ c: FirestoreTestClient) {
            (c.emulator.webChannel.listen.stream(forSession: sid) as? ListenChannel)?.stream.refresh()
        }

        func forward(ofs: Int, _ messages: [String]) -> HTTPResponse {
            http.post("\(path)?VER=8&SID=\(sid)&RID=2&AID=0&t=1", body: WebChannelTests.form(ofs: ofs, messages))
        }
    }

    /// The message payloads (noops left out) written on a back channel so far.
    static func payloads(_ back: InProcessClient.StreamedResponse) throws -> [JSONValue] {
        var out: [JSONValue] = []
        for frame in try #require(WebChannelFrame.split(back.writer.bytes)) {
            guard case .array(let items) = try JSONReader.parse(frame) else { continue }
            for case .array(let pair) in items where pair.count == 2 {
                if case .array(let p) = pair[1], let payload = p.first, payload != .string("noop") { out.append(payload) }
            }
        }
        return out
    }

    /// Waits (up to 10 s) until the back channel carries a payload `match` accepts.
    @discardableResult
    static func waitFor(_ back: InProcessClient.StreamedResponse, _ match: (JSONValue) -> Bool) async throws -> JSONValue {
        // 30 s of wall time: the stream's worker shares the test process's busy thread pool.
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let hit = try payloads(back).first(where: match) { return hit }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw Session.SessionError.timeout(try payloads(back))
    }

    static func targetChange(_ v: JSONValue, _ type: String) -> Bool {
        v[member: "targetChange"]?[member: "targetChangeType"] == .string(type)
    }

    static func queryTarget(_ c: FirestoreTestClient, _ collection: String, id: Int = 2) -> String {
        #"{"database":"projects/\#(c.project)/databases/(default)","addTarget":{"query":{"parent":"\#(c.root)","structuredQuery":{"from":[{"collectionId":"\#(collection)"}]}},"targetId":\#(id)}}"#
    }

    @Test("Listen: ADD, the documents, CURRENT and NO_CHANGE, then another client's write")
    func listenSeesWrites() async throws {
        let c = FirestoreTestClient()
        c.set([("cities/sf", #"{"name":{"stringValue":"SF"}}"#)])
        let session = try Session(c, Self.listen, [Self.queryTarget(c, "cities")])
        let back = session.backChannel()
        try await Self.waitFor(back) { $0[member: "targetChange"]?[member: "readTime"] != nil }
        let first = try Self.payloads(back)
        #expect(Self.targetChange(first[0], "ADD"))
        #expect(first[1][member: "documentChange"]?[member: "document"]?[member: "name"] == .string(c.name("cities/sf")))
        #expect(first[1][member: "documentChange"]?[member: "targetIds"] == .array([.int(2)]))
        #expect(Self.targetChange(first[2], "CURRENT"))
        #expect(first[2][member: "targetChange"]?[member: "resumeToken"] != nil)

        c.set([("cities/la", #"{"name":{"stringValue":"LA"}}"#)])
        session.refresh(c)
        let change = try await Self.waitFor(back) {
            $0[member: "documentChange"]?[member: "document"]?[member: "name"] == .string(c.name("cities/la"))
        }
        #expect(change[member: "documentChange"]?[member: "document"]?[member: "fields"]?[member: "name"]?[member: "stringValue"] == .string("LA"))
        _ = c.send(.delete, "/v1/\(c.name("cities/sf"))")
        session.refresh(c)
        let deleted = try await Self.waitFor(back) { $0[member: "documentDelete"]?[member: "document"] == .string(c.name("cities/sf")) }
        #expect(deleted[member: "documentDelete"]?[member: "removedTargetIds"] == .array([.int(2)]))

        // Removing the target on the forward channel.
        #expect(session.forward(ofs: 1, [#"{"database":"projects/demo/databases/(default)","removeTarget":2}"#]).status == .ok)
        try await Self.waitFor(back) { Self.targetChange($0, "REMOVE") }
    }

    @Test("Listen: commits made while the client has no back channel wait, then come as one global snapshot")
    func listenCoalescesWhileBehind() async throws {
        let c = FirestoreTestClient()
        let session = try Session(c, Self.listen, [Self.queryTarget(c, "cities")])
        let first = session.backChannel()
        try await Self.waitFor(first) { $0[member: "targetChange"]?[member: "readTime"] != nil }
        let seen = try #require(WebChannelFrame.split(first.writer.bytes)).count
        // The client's back channel goes away; the forward channel's answer shows when it is gone.
        first.writer.close()
        var reply = ""
        for _ in 0..<500 {
            reply = String(decoding: try #require(WebChannelFrame.split(session.forward(ofs: 1, []).bodyBytes)).first ?? [], as: UTF8.self)
            if reply.hasPrefix("[0,") { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(reply.hasPrefix("[0,"))
        for city in ["la", "sf", "ny"] {
            c.set([("cities/\(city)", #"{"name":{"stringValue":"x"}}"#)])
            session.refresh(c)
        }
        // Nothing was queued for the client meanwhile: the commits wait for it.
        let waiting = String(decoding: try #require(WebChannelFrame.split(session.forward(ofs: 1, []).bodyBytes)).first ?? [], as: UTF8.self)
        #expect(waiting == reply)
        // A new back channel (after every id the first carried): the session tells the stream
        // (`WebChannelServerTests`), whose worker refreshes it; run here, as after each commit
        // above, since the worker may wait long for a thread while the whole suite runs.
        let lastID = Int(reply.split(separator: ",")[1]) ?? 0
        let second = session.backChannel(aid: lastID)
        session.refresh(c)
        try await Self.waitFor(second) { $0[member: "targetChange"]?[member: "readTime"] != nil }
        let sent = try Self.payloads(second)
        #expect(sent.compactMap { $0[member: "documentChange"]?[member: "document"]?[member: "name"] }
            == ["la", "sf", "ny"].map { .string(c.name("cities/\($0)")) })
        #expect(sent.filter { $0[member: "targetChange"]?[member: "readTime"] != nil }.count == 1)
        #expect(seen > 0)
    }

    @Test("Write: handshake, then commits answered with results; a replayed ofs commits once")
    func writeStream() async throws {
        let c = FirestoreTestClient()
        let session = try Session(c, Self.write, [#"{"database":"projects/demo/databases/(default)"}"#])
        let back = session.backChannel()
        let handshake = try await Self.waitFor(back) { $0[member: "streamId"] != nil }
        guard case .string(let token)? = handshake[member: "streamToken"] else {
            Issue.record("no stream token in \(handshake)")
            return
        }
        let commit = #"{"streamToken":"\#(token)","writes":[{"update":{"name":"\#(c.name("counters/a"))","fields":{}},"updateTransforms":[{"fieldPath":"n","increment":{"integerValue":"1"}}]}]}"#
        #expect(session.forward(ofs: 1, [commit]).status == .ok)
        #expect(session.forward(ofs: 1, [commit]).status == .ok)  // the SDK resending the same request
        let result = try await Self.waitFor(back) { $0[member: "commitTime"] != nil }
        guard case .array(let results)? = result[member: "writeResults"], case .array(let transforms)? = results.first?[member: "transformResults"] else {
            Issue.record("no write results in \(result)")
            return
        }
        #expect(transforms == [.object([JSONMember("integerValue", .string("1"))])])
        let doc = c.send(.get, "/v1/\(c.name("counters/a"))")
        #expect(doc.json[member: "fields"]?[member: "n"]?[member: "integerValue"] == .string("1"))
        #expect(try Self.payloads(back).count == 2)
    }

    @Test("invalid JSON in __data__ ends that stream with INVALID_ARGUMENT; other sessions go on")
    func invalidJSON() async throws {
        let c = FirestoreTestClient()
        let good = try Session(c, Self.listen, [Self.queryTarget(c, "a")])
        let bad = try Session(c, Self.listen, [#"{"database":"#])
        let badBack = bad.backChannel()
        let error = try await Self.waitFor(badBack) { $0[member: "error"] != nil }
        #expect(error[member: "error"]?[member: "status"] == .string("INVALID_ARGUMENT"))
        #expect(error[member: "error"]?[member: "code"] == .int(400))
        let unknownField = try Session(c, Self.listen, [#"{"database":"projects/demo/databases/(default)","bogus":1}"#])
        let unknownBack = unknownField.backChannel()
        let refusal = try await Self.waitFor(unknownBack) { $0[member: "error"] != nil }
        guard case .string(let message)? = refusal[member: "error"]?[member: "message"] else {
            Issue.record("no message in \(refusal)")
            return
        }
        #expect(message.contains(#"Unknown name "bogus""#))
        let goodBack = good.backChannel()
        try await Self.waitFor(goodBack) { Self.targetChange($0, "CURRENT") }
    }

    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /open/{id} { allow read, write: if true; }
            match /locked/{id} { allow read, write: if request.auth != null; }
          }
        }
        """

    @Test("rules: a denied target is removed with PERMISSION_DENIED, a denied write ends the Write stream with it")
    func rulesDenials() async throws {
        let gate = try #require(FirestoreRulesEngine.compile(Self.rules).gate)
        let c = FirestoreTestClient(rules: gate)
        let listen = try Session(c, Self.listen, [Self.queryTarget(c, "locked", id: 4)])
        let back = listen.backChannel()
        let removed = try await Self.waitFor(back) { Self.targetChange($0, "REMOVE") }
        #expect(removed[member: "targetChange"]?[member: "cause"]?[member: "code"] == .int(7))
        // The stream itself goes on: a permitted target on it works.
        #expect(listen.forward(ofs: 1, [Self.queryTarget(c, "open", id: 6)]).status == .ok)
        try await Self.waitFor(back) { Self.targetChange($0, "CURRENT") && $0[member: "targetChange"]?[member: "targetIds"] == .array([.int(6)]) }

        let write = try Session(c, Self.write, [#"{"database":"projects/demo/databases/(default)"}"#])
        let writeBack = write.backChannel()
        let handshake = try await Self.waitFor(writeBack) { $0[member: "streamToken"] != nil }
        guard case .string(let token)? = handshake[member: "streamToken"] else { return }
        _ = write.forward(ofs: 1, [#"{"streamToken":"\#(token)","writes":[{"update":{"name":"\#(c.name("locked/x"))","fields":{}}}]}"#])
        let denied = try await Self.waitFor(writeBack) { $0[member: "error"] != nil }
        #expect(denied[member: "error"]?[member: "status"] == .string("PERMISSION_DENIED"))
        #expect(c.send(.get, "/v1/\(c.name("locked/x"))", headers: [("Authorization", "Bearer owner")]).status == 404)

        // The owner's token in the opening form's headers (as the SDK sends it) bypasses rules.
        let owner = try Session(
            c, Self.write, [#"{"database":"projects/demo/databases/(default)"}"#],
            headers: "X-Goog-Api-Client:gl-js/ fire/10.12.2\r\nAuthorization:Bearer owner\r\n")
        let ownerBack = owner.backChannel()
        let ownerHandshake = try await Self.waitFor(ownerBack) { $0[member: "streamToken"] != nil }
        guard case .string(let ownerToken)? = ownerHandshake[member: "streamToken"] else { return }
        _ = owner.forward(ofs: 1, [#"{"streamToken":"\#(ownerToken)","writes":[{"update":{"name":"\#(c.name("locked/y"))","fields":{}}}]}"#])
        try await Self.waitFor(ownerBack) { $0[member: "commitTime"] != nil }
    }
}
