/// The service side of one WebChannel session: gets the client's messages (JSON text, in order,
/// each once) and sends through the ``WebChannelOutput`` it was opened with.
package protocol WebChannelStream: Sendable {
    /// One client message (a `req{i}___data__` payload).
    func receive(_ message: [UInt8])
    /// The session ended (terminated by the client, expired, or failed): stop sending.
    func close()
    /// The client attached a back channel: what waited for one has gone out, or some of it (then
    /// the output is still backed up). A stream that holds work back while its output is
    /// backed up (``WebChannelOutput/isBackedUp``) resumes it here.
    func backChannelAttached()
}

extension WebChannelStream {
    package func backChannelAttached() {}
}

/// What a WebChannel service is asked to open a session with.
package struct WebChannelOpening: Sendable {
    /// The request that opened the session.
    package var request: HTTPRequest
    /// The headers the client sent in the form body (`encodeInitMessageHeaders`), which stand in
    /// for HTTP headers a browser could not send without a preflight.
    package var headers: [WebChannelForm.Header]

    /// A header from the form body, else from the HTTP request (any case).
    package func header(_ name: String) -> String? {
        let lower = name.lowercased()
        if let h = headers.first(where: { $0.name.lowercased() == lower }) { return h.value }
        return request.headers[name]
    }
}

/// Sends one session's server messages; safe from any thread. Messages sent before a back
/// channel is attached wait for it.
package final class WebChannelOutput: Sendable {
    private let sendMessages: @Sendable ([[UInt8]]) -> Void
    private let backedUp: @Sendable () -> Bool

    package init(_ send: @escaping @Sendable ([[UInt8]]) -> Void, isBackedUp: @escaping @Sendable () -> Bool = { false }) {
        self.sendMessages = send
        self.backedUp = isBackedUp
    }

    /// True while the client has no back channel (it has not come back for what it was sent):
    /// later messages would only queue behind.
    package var isBackedUp: Bool { backedUp() }

    /// Queues one message (its JSON) for the client.
    package func send(_ message: [UInt8]) { sendMessages([message]) }

    /// Queues messages in order; a back channel gets them in one write.
    package func send(contentsOf messages: [[UInt8]]) {
        if !messages.isEmpty { sendMessages(messages) }
    }
}
