import Testing

@testable import EmulatorHTTP

@Suite struct RoutingTests {
    private func router() -> Router {
        var router = Router()
        router.add(.get, "/users/:id") { .text("user \($0.parameters["id"] ?? "?")") }
        router.add(.put, "/users/:id") { .text("put \($0.parameters["id"] ?? "?") \(String(decoding: $0.body, as: UTF8.self))") }
        router.add(nil, "/files/*") { .text("file \($0.parameters["*"] ?? "?")") }
        return router
    }

    @Test func routesByPatternAndMethod() {
        let client = InProcessClient(router: router())
        #expect(client.get("/users/ada%20l").bodyText == "user ada l")
        #expect(client.put("/users/ada", body: "{}").bodyText == "put ada {}")
        #expect(client.get("/files/a/b/c.txt?x=1").bodyText == "file a/b/c.txt")
        #expect(client.delete("/users/ada").status == .methodNotAllowed)
        #expect(client.get("/nothing").status == .notFound)
    }

    @Test func literalSegmentsMatchByteForByteAndSlashesSplitOnTheByte() {
        var router = Router()
        router.add(.get, "/caf\u{E9}") { _ in .text("composed") }
        router.add(.get, "/a/:x/:y") { .text("\($0.parameters["x"] ?? "?")|\($0.parameters["y"] ?? "?")") }
        let client = InProcessClient(router: router)
        #expect(client.get("/caf\u{E9}").bodyText == "composed")
        // Canonically equivalent but different bytes: a different path.
        #expect(client.get("/cafe\u{301}").status == .notFound)
        // A combining mark right after `/` does not hide the separator.
        #expect(client.get("/a/\u{301}b/c").bodyText == "\u{301}b|c")
        #expect(client.get("//a///x//y/").bodyText == "x|y")
    }

    @Test func preflightIsAnsweredWithoutTheRouter() {
        let client = InProcessClient(handler: router().withCORS())
        let response = client.send(
            HTTPRequest(
                method: .options, target: "/users/ada",
                headers: HTTPHeaders([
                    ("Origin", "http://localhost:3000"), ("Access-Control-Request-Method", "PUT"),
                    ("Access-Control-Request-Headers", "authorization, content-type"),
                ])))
        #expect(response.status == .noContent)
        #expect(response.headers["Access-Control-Allow-Origin"] == "http://localhost:3000")
        #expect(response.headers["Access-Control-Allow-Methods"]?.contains("PUT") == true)
        #expect(response.headers["Access-Control-Allow-Headers"] == "authorization, content-type")
        #expect(response.headers["Access-Control-Max-Age"] == "86400")
        #expect(response.headers["Vary"] == "Origin")
    }

    @Test func responsesGetAllowOrigin() {
        let client = InProcessClient(handler: router().withCORS())
        let withOrigin = client.get("/users/ada", headers: [("Origin", "http://app.test")])
        #expect(withOrigin.headers["Access-Control-Allow-Origin"] == "http://app.test")
        #expect(withOrigin.bodyText == "user ada")
        #expect(client.get("/users/ada").headers["Access-Control-Allow-Origin"] == "*")
    }

    @Test func restrictedOriginsAreNotEchoed() {
        let policy = CORSPolicy(allowedOrigins: ["http://good.test"])
        let client = InProcessClient(handler: policy.wrap(router().respond(to:)))
        #expect(client.get("/users/a", headers: [("Origin", "http://evil.test")]).headers["Access-Control-Allow-Origin"] == nil)
        #expect(
            client.get("/users/a", headers: [("Origin", "http://good.test")]).headers["Access-Control-Allow-Origin"]
                == "http://good.test")
    }

    @Test func plainOptionsIsNotAPreflight() {
        let client = InProcessClient(handler: router().withCORS())
        #expect(client.send(HTTPRequest(method: .options, target: "/users/a")).status == .methodNotAllowed)
    }
}

@Suite struct StreamingTests {
    @Test func serverSentEventFormatting() {
        #expect(String(decoding: ServerSentEvent(event: "put", data: #"{"a":1}"#).bytes, as: UTF8.self) == "event: put\ndata: {\"a\":1}\n\n")
        #expect(String(decoding: ServerSentEvent(data: "a\nb\r\nc\rd").bytes, as: UTF8.self) == "data: a\ndata: b\ndata: c\ndata: d\n\n")
        #expect(
            String(decoding: ServerSentEvent(event: "x\ny", data: "", id: "7", retry: 1500).bytes, as: UTF8.self)
                == "event: xy\nid: 7\nretry: 1500\ndata: \n\n")
        #expect(String(decoding: ServerSentEvent.comment("keep-alive"), as: UTF8.self) == ": keep-alive\n\n")
    }

    @Test func inProcessStreamCollectsWritesAndReportsClose() {
        var router = Router()
        let closed = CollectingStreamWriter()  // used as a flag holder
        router.add(.get, "/events") { _ in
            HTTPResponse(
                headers: ServerSentEvent.responseHeaders,
                stream: HTTPStreamBody { writer in
                    writer.write(ServerSentEvent(event: "put", data: "1").bytes)
                    writer.onClose { closed.write([1]) }
                })
        }
        let client = InProcessClient(router: router)
        let stream = client.stream("/events")
        #expect(stream.status == .ok)
        #expect(stream.headers["Content-Type"] == "text/event-stream")
        #expect(stream.writer.text == "event: put\ndata: 1\n\n")
        #expect(stream.writer.isOpen)
        stream.writer.close()
        #expect(!stream.writer.isOpen)
        #expect(closed.chunks == [[1]])
        #expect(!stream.writer.write([2]))
    }

    @Test func inProcessStreamOfAPlainResponse() {
        var router = Router()
        router.add(.get, "/x") { _ in .text("whole") }
        let stream = InProcessClient(router: router).stream("/x")
        #expect(stream.writer.text == "whole")
        #expect(!stream.writer.isOpen)
    }
}
