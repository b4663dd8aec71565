import Synchronization
import Testing

@testable import EmulatorHTTP

@Suite struct HTTP1ConnectionTests {
    /// Runs every action the connection produces against `handler`; returns the bytes written and
    /// whether the connection asked to close.
    private func drive(
        _ connection: inout HTTP1Connection, _ input: String, handler: (HTTPRequest) -> HTTPResponse
    ) -> (String, closed: Bool) {
        var out: [UInt8] = []
        connection.received(Array(input.utf8))
        while let action = connection.nextAction(into: &out) {
            switch action {
            case .handle(let request):
                switch connection.respond(handler(request), into: &out) {
                case .next: continue
                case .close, .stream, .upgrade: return (String(decoding: out, as: UTF8.self), true)
                case .deferred: return (String(decoding: out, as: UTF8.self), false)
                }
            case .close, .http2:
                return (String(decoding: out, as: UTF8.self), true)
            }
        }
        return (String(decoding: out, as: UTF8.self), false)
    }

    @Test func pipelinedResponsesComeInOrderInOneBuffer() {
        var connection = HTTP1Connection()
        let (out, closed) = drive(&connection, "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n") {
            .text(String($0.target.dropFirst()))
        }
        let one = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 1\r\n\r\n"
        #expect(out == one + "a" + one + "b")
        #expect(!closed)
        #expect(connection.isIdle)
    }

    @Test func aDeferredResponseHoldsBackPipelinedRequestsUntilItIsGiven() throws {
        var connection = HTTP1Connection()
        var out: [UInt8] = []
        connection.received(Array("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n".utf8))
        guard case .handle(let first) = connection.nextAction(into: &out) else { Issue.record("no request"); return }
        #expect(first.target == "/a")
        let deferred = HTTPDeferredResponse()
        guard case .deferred(let returned) = connection.respond(.deferred(deferred), into: &out) else {
            Issue.record("not deferred"); return
        }
        #expect(returned === deferred)
        #expect(out.isEmpty)
        #expect(connection.isAwaitingResponse)
        #expect(!connection.isIdle)
        // /b waits behind /a, however often the driver asks.
        #expect(connection.nextAction(into: &out) == nil)
        #expect(connection.nextAction(into: &out) == nil)
        guard case .next = connection.respond(.text("a"), into: &out) else { Issue.record("not next"); return }
        guard case .handle(let second) = connection.nextAction(into: &out) else { Issue.record("no /b"); return }
        #expect(second.target == "/b")
        guard case .next = connection.respond(.text("b"), into: &out) else { Issue.record("not next"); return }
        let one = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 1\r\n\r\n"
        #expect(String(decoding: out, as: UTF8.self) == one + "a" + one + "b")
        #expect(connection.isIdle)
    }

    @Test func drainingWhileADeferredResponseIsPendingClosesAfterIt() {
        var connection = HTTP1Connection()
        var out: [UInt8] = []
        connection.received(Array("GET /a HTTP/1.1\r\n\r\n".utf8))
        _ = connection.nextAction(into: &out)
        _ = connection.respond(.deferred(HTTPDeferredResponse()), into: &out)
        connection.drain()
        guard case .close = connection.respond(.text("a"), into: &out) else { Issue.record("not close"); return }
        #expect(String(decoding: out, as: UTF8.self).contains("Connection: close\r\n"))
    }

    @Test func deferredResponseGoesToOneHandlerOnceAndIgnoresLaterCompletions() {
        let deferred = HTTPDeferredResponse()
        let received = Mutex<[String]>([])
        deferred.onComplete { response in received.withLock { $0.append(response.bodyText) } }
        #expect(!deferred.isCompleted)
        deferred.complete(.text("first"))
        deferred.complete(.text("second"))
        #expect(received.withLock { $0 } == ["first"])
        #expect(deferred.isCompleted)
        #expect(deferred.takeIfCompleted() == nil)
    }

    @Test func cancelledDeferredResponseDropsTheCompletion() {
        let deferred = HTTPDeferredResponse()
        let received = Mutex(0)
        deferred.onComplete { _ in received.withLock { $0 += 1 } }
        deferred.cancel()
        deferred.complete(.text("late"))
        #expect(received.withLock { $0 } == 0)
        #expect(HTTPResponse.deferred(deferred).resolved().status == .serviceUnavailable)
    }

    @Test func inProcessCallersWaitForADeferredResponse() {
        let client = InProcessClient { _ in
            let deferred = HTTPDeferredResponse()
            deferred.complete(.text("later"))
            return .deferred(deferred)
        }
        #expect(client.get("/").bodyText == "later")
    }

    @Test func connectionCloseRequestEndsTheConnection() {
        var connection = HTTP1Connection()
        let (out, closed) = drive(&connection, "GET / HTTP/1.1\r\nConnection: close\r\n\r\nGET /never HTTP/1.1\r\n\r\n") {
            _ in HTTPResponse(status: .noContent)
        }
        #expect(out == "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
        #expect(closed)
    }

    @Test func parseErrorsAnswerAndClose() {
        var connection = HTTP1Connection(limits: HTTP1Limits(maxBodyBytes: 1))
        let (out, closed) = drive(&connection, "POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n") { _ in .text("no") }
        #expect(out.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"))
        #expect(out.contains("Connection: close\r\n"))
        #expect(closed)
    }

    @Test func continueIsWrittenBeforeTheResponse() {
        var connection = HTTP1Connection()
        let (first, _) = drive(&connection, "PUT / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n") {
            .text(String(decoding: $0.body, as: UTF8.self))
        }
        #expect(first == "HTTP/1.1 100 Continue\r\n\r\n")
        let (second, _) = drive(&connection, "ok") { .text(String(decoding: $0.body, as: UTF8.self)) }
        #expect(second.hasSuffix("Content-Length: 2\r\n\r\nok"))
    }

    @Test func pipelinedRequestWaitsForTheStreamToEnd() {
        var connection = HTTP1Connection()
        var out: [UInt8] = []
        connection.received(Array("GET /events HTTP/1.1\r\n\r\nGET /next HTTP/1.1\r\n\r\n".utf8))
        guard case .handle? = connection.nextAction(into: &out) else {
            Issue.record("expected a request")
            return
        }
        guard case .stream(_, let framing) = connection.respond(HTTPResponse(stream: HTTPStreamBody { _ in }), into: &out)
        else {
            Issue.record("expected a stream")
            return
        }
        #expect(framing == .chunked)
        let waiting = connection.nextAction(into: &out)
        #expect(waiting == nil)
        #expect(connection.isStreaming)
        let keepsOpen = connection.streamEnded(into: &out)
        #expect(keepsOpen)
        guard case .handle(let next)? = connection.nextAction(into: &out) else {
            Issue.record("expected the pipelined request")
            return
        }
        #expect(next.target == "/next")
        #expect(String(decoding: out, as: UTF8.self).hasSuffix("0\r\n\r\n"))
    }

    @Test func drainingClosesAfterTheCurrentResponse() {
        var connection = HTTP1Connection()
        var out: [UInt8] = []
        connection.received(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        guard case .handle? = connection.nextAction(into: &out) else { return }
        connection.drain()
        guard case .close = connection.respond(.text("x"), into: &out) else {
            Issue.record("expected close")
            return
        }
        #expect(String(decoding: out, as: UTF8.self).contains("Connection: close"))
    }

    @Test func prefaceHandsOverTheBytes() {
        var connection = HTTP1Connection()
        var out: [UInt8] = []
        connection.received(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nxyz".utf8))
        guard case .http2(let buffered)? = connection.nextAction(into: &out) else {
            Issue.record("expected http2")
            return
        }
        #expect(String(decoding: buffered, as: UTF8.self) == "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nxyz")
    }

    @Test func upgradeHandsOverTheRest() {
        var connection = HTTP1Connection()
        var out: [UInt8] = []
        connection.received(Array("GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n\u{81}\u{80}".utf8))
        guard case .handle? = connection.nextAction(into: &out) else { return }
        let response = HTTPResponse.switchingProtocols(headers: HTTPHeaders(), upgrade: HTTPUpgrade { _ in NoHandler() })
        guard case .upgrade(_, let buffered) = connection.respond(response, into: &out) else {
            Issue.record("expected upgrade")
            return
        }
        #expect(buffered == Array("\u{81}\u{80}".utf8))
    }
}

