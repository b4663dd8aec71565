/// The service side of one WebChannel session: gets the client's messages (JSON text, in order,
/// each once) and sends through the ``WebChannelOutput`` it was opened with.
package protocol WebChannelStream: Sendable {
    /// One client message (a `req{i}___data__` payload).
    func receive(_ message: [UInt8])
    /// The session ended (terminated by the client, expired, or failed): stop sending.
    func close()
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

    package init(_ send: @escaping @Sendable ([[UInt8]]) -> Void) {
        self.sendMessages = send
    }

    /// Queues one message (its JSON) for the client.
    package func send(_ message: [UInt8]) { sendMessages([message]) }

    /// Queues messages in order; a back channel gets them in one write.
    package func send(contentsOf messages: [[UInt8]]) {
        if !messages.isEmpty { sendMessages(messages) }
    }
}
