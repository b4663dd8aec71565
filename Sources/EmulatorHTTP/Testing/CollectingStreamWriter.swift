import Synchronization

/// An ``HTTPStreamWriter`` that keeps every written piece in memory (for tests and the
/// in-process client).
package final class CollectingStreamWriter: HTTPStreamWriter {
    private struct State {
        var chunks: [[UInt8]] = []
        var open = true
        var handlers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    package init() {}

    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard state.open else { return false }
            state.chunks.append(bytes)
            return true
        }
    }

    package func finish() {
        close()
    }

    /// Simulates the peer going away: closes the stream and runs the close handlers.
    package func close() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard state.open else { return [] }
            state.open = false
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    package var isOpen: Bool { state.withLock { $0.open } }

    package func onClose(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            guard state.open else { return true }
            state.handlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// Every piece written so far, in order.
    package var chunks: [[UInt8]] { state.withLock { $0.chunks } }

    /// Everything written so far, concatenated.
    package var bytes: [UInt8] { state.withLock { $0.chunks.flatMap { $0 } } }

    /// Everything written so far as UTF-8 text.
    package var text: String { String(decoding: bytes, as: UTF8.self) }
}
