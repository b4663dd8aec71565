/// Takes over a connection's bytes after an upgrade (WebSocket) or an HTTP/2 preface.
///
/// The transport calls `received` with every byte that arrives (first with whatever was already
/// buffered after the upgrade request or, for HTTP/2, the preface itself), always on the
/// connection's event-loop thread and never concurrently; `closed` runs once when the connection ends.
package protocol UpgradedConnectionHandler: Sendable {
    func received(_ bytes: [UInt8])
    func closed()
}

/// The writing end of a taken-over connection. Safe to call from any thread.
package protocol UpgradedConnectionWriter: AnyObject, Sendable {
    /// Queues raw bytes for the peer. Returns `false` once the connection has closed.
    @discardableResult func write(_ bytes: [UInt8]) -> Bool
    /// Flushes what is queued, then closes the connection.
    func close()
    /// Whether the connection is still open.
    var isOpen: Bool { get }
    /// Runs `work` on the connection's thread (where ``UpgradedConnectionHandler/received(_:)``
    /// runs), after what is already queued for it; never runs once the connection has closed.
    /// Use it to act on a completion that arrives on another thread.
    func execute(_ work: @escaping @Sendable () -> Void)
}

extension UpgradedConnectionWriter {
    /// Writers without a thread of their own (in-process tests) run `work` at once.
    package func execute(_ work: @escaping @Sendable () -> Void) {
        if isOpen { work() }
    }
}

/// Makes the handler for a connection being taken over, given the writer to answer with.
package typealias UpgradedConnectionFactory = @Sendable (any UpgradedConnectionWriter) -> any UpgradedConnectionHandler

/// A `101 Switching Protocols` answer: the response's headers go out with status 101, then the
/// connection belongs to the handler `makeHandler` returns.
package struct HTTPUpgrade: Sendable {
    package var makeHandler: UpgradedConnectionFactory

    package init(makeHandler: @escaping UpgradedConnectionFactory) {
        self.makeHandler = makeHandler
    }
}

/// The hook a server configuration carries for connections that open with the HTTP/2 preface
/// (gRPC on the Firestore port): the handler first receives the preface itself.
package typealias HTTP2ConnectionHandlerFactory = UpgradedConnectionFactory
