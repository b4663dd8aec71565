/// One HTTP/1.1 connection as a state machine: parser plus response sequencing.
///
/// The socket driver feeds bytes with ``received(_:)``, then pulls actions with
/// ``nextAction(into:)`` until `nil`, writing everything appended to `out` in one `write` at the end.
/// Pipelined requests are handed out one at a time; the next one comes only after the previous
/// response (including a whole streamed body, or a deferred response once completed) has been
/// encoded, so responses stay in order.
///
/// ```swift
/// var connection = HTTP1Connection()
/// var out: [UInt8] = []
/// connection.received(bytes)
/// while let action = connection.nextAction(into: &out) {
///     guard case .handle(let request) = action else { break }
///     switch connection.respond(router.respond(to: request), into: &out) { ... }
/// }
/// ```
package struct HTTP1Connection: Sendable {
    /// What the driver must do next.
    package enum Action: Sendable {
        /// Produce a response for this request and pass it to ``HTTP1Connection/respond(_:into:)``.
        case handle(HTTPRequest)
        /// Send what is in `out`, then close the connection.
        case close
        /// The peer speaks HTTP/2 with prior knowledge: hand these bytes (starting with the preface)
        /// and the connection to an HTTP/2 handler, or close.
        case http2(buffered: [UInt8])
    }

    /// What follows a response.
    package enum ResponseOutcome: Sendable {
        /// The response is complete in `out`; keep pulling actions.
        case next
        /// Send `out`, then close.
        case close
        /// The head is in `out`; start the stream body. Pieces are framed with
        /// ``HTTP1ResponseEncoder/appendBodyPiece(_:framing:into:)``; when it ends call
        /// ``HTTP1Connection/streamEnded(into:)``.
        case stream(HTTPStreamBody, HTTP1ResponseEncoder.StreamFraming)
        /// The 101 head is in `out`; the connection now belongs to the upgrade handler, which first
        /// receives `buffered`.
        case upgrade(HTTPUpgrade, buffered: [UInt8])
        /// Nothing was encoded: the response comes later. Call ``HTTP1Connection/respond(_:into:)``
        /// again with the completed response; until then no further request is handed out.
        case deferred(HTTPDeferredResponse)
    }

    private enum State: Sendable {
        case reading
        case responding(HTTP1ResponseEncoder.Context)
        case streaming(HTTP1ResponseEncoder.StreamFraming, close: Bool)
        case closed
    }

    private var parser: HTTP1RequestParser
    private var state: State = .reading
    private var draining = false

    package init(limits: HTTP1Limits = HTTP1Limits()) {
        parser = HTTP1RequestParser(limits: limits)
    }

    /// Feeds received bytes.
    package mutating func received(_ bytes: UnsafeRawBufferPointer) {
        parser.append(bytes)
    }

    /// Feeds received bytes.
    package mutating func received(_ bytes: some Collection<UInt8>) {
        parser.append(bytes)
    }

    /// Whether no request is in progress and nothing is buffered (idle-timeout applies).
    package var isIdle: Bool {
        if case .reading = state { return parser.isIdle }
        return false
    }

    /// Whether part of a request has arrived but not all of it (header-read timeout applies).
    package var isReadingRequest: Bool {
        if case .reading = state { return !parser.isIdle }
        return false
    }

    /// Bytes received and not yet consumed by a complete request.
    package var bufferedCount: Int { parser.bufferedCount }

    /// Whether a request was handed out and its response is not encoded yet (e.g. deferred).
    package var isAwaitingResponse: Bool {
        if case .responding = state { return true }
        return false
    }

    /// Whether a streamed body is in progress.
    package var isStreaming: Bool {
        if case .streaming = state { return true }
        return false
    }

    /// Asks the connection to close after the response in progress (graceful shutdown).
    package mutating func drain() {
        draining = true
    }

    /// The next action, or `nil` when more input (or a stream's end) is needed.
    package mutating func nextAction(into out: inout [UInt8]) -> Action? {
        guard case .reading = state else { return nil }
        if draining, parser.isIdle {
            state = .closed
            return .close
        }
        while let event = parser.next() {
            switch event {
            case .sendContinue:
                out.append(contentsOf: HTTP1ResponseEncoder.continueBytes)
            case .failure(let status):
                HTTP1ResponseEncoder.errorResponse(status, into: &out)
                state = .closed
                return .close
            case .http2Preface:
                state = .closed
                return .http2(buffered: parser.takeBuffered())
            case .request(let parsed):
                let context = HTTP1ResponseEncoder.Context(
                    isHead: parsed.request.method == .head,
                    minorVersion: parsed.minorVersion,
                    close: !parsed.keepAlive || draining)
                state = .responding(context)
                return .handle(parsed.request)
            }
        }
        if draining, parser.isIdle {
            state = .closed
            return .close
        }
        return nil
    }

    /// Encodes the response to the request last handed out by ``nextAction(into:)``.
    package mutating func respond(_ response: HTTPResponse, into out: inout [UInt8]) -> ResponseOutcome {
        guard case .responding(var context) = state else {
            state = .closed
            return .close
        }
        if draining { context.close = true }
        switch response.body {
        case .bytes:
            HTTP1ResponseEncoder.encode(response, context: context, into: &out)
            return finishExchange(close: context.close)
        case .stream(let body):
            let framing = HTTP1ResponseEncoder.encode(response, context: context, into: &out) ?? .none
            if framing == .none { return finishExchange(close: context.close) }
            state = .streaming(framing, close: context.close || framing == .closeDelimited)
            return .stream(body, framing)
        case .upgrade(let upgrade):
            HTTP1ResponseEncoder.encode(response, context: context, into: &out)
            state = .closed
            return .upgrade(upgrade, buffered: parser.takeBuffered())
        case .deferred(let deferred):
            // Still responding to the same request: pipelined requests stay queued in the parser.
            return .deferred(deferred)
        }
    }

    /// Ends the streamed body in progress. Returns `true` when the connection stays open for the
    /// next request (keep pulling actions), `false` when it must close after sending `out`.
    package mutating func streamEnded(into out: inout [UInt8]) -> Bool {
        guard case .streaming(let framing, let close) = state else { return false }
        HTTP1ResponseEncoder.appendBodyEnd(framing: framing, into: &out)
        if close || draining {
            state = .closed
            return false
        }
        state = .reading
        return true
    }

    private mutating func finishExchange(close: Bool) -> ResponseOutcome {
        if close {
            state = .closed
            return .close
        }
        state = .reading
        return .next
    }
}
