/// One piece of a paced body (``HTTPStreamBody/init(paced:)``).
package enum HTTPBodyStep: Sendable {
    /// These bytes; more follow.
    case more([UInt8])
    /// The last bytes of the body.
    case end([UInt8])
}

extension HTTPStreamBody {
    /// A finite body made a piece at a time as the peer reads it (sent chunked over HTTP/1.1):
    /// `next` makes the first piece once the head is sent, and each further piece only when the
    /// writer has room again (``HTTPStreamWriter/deferUntilRoom(_:)``), so a client that reads
    /// nothing holds about one piece plus what the kernel buffers. `next` is called on one thread
    /// at a time, and no more once the stream closed. In-process callers take the whole body
    /// (``HTTPResponse/resolved()``).
    ///
    /// ```swift
    /// let pieces = Mutex([[UInt8]("[1,".utf8), Array("2]".utf8)])
    /// let body = HTTPStreamBody(paced: { pieces.withLock { p in p.count > 1 ? .more(p.removeFirst()) : .end(p.removeFirst()) } })
    /// ```
    package init(paced next: @escaping @Sendable () -> HTTPBodyStep) {
        self.init(start: { writer in Self.pump(next, into: writer) })
        self.paced = next
    }

    /// Writes pieces while `writer` has room; when it has none, continues when it does.
    private static func pump(_ next: @escaping @Sendable () -> HTTPBodyStep, into writer: any HTTPStreamWriter) {
        while writer.isOpen {
            switch next() {
            case .end(let bytes):
                writer.write(bytes)
                writer.finish()
                return
            case .more(let bytes):
                guard writer.write(bytes) else { return }
                if writer.deferUntilRoom({ pump(next, into: writer) }) { return }
            }
        }
    }

    /// Every piece of a paced body, joined.
    static func collect(_ next: @Sendable () -> HTTPBodyStep) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            switch next() {
            case .more(let bytes): body += bytes
            case .end(let bytes): return body + bytes
            }
        }
    }
}
