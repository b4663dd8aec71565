import DatabaseEmulator
import EmulatorHTTP
import EmulatorSupport
import Synchronization
import Testing

/// The names of the writers in the order they were written to.
private final class OrderLog: Sendable {
    let names = Mutex<[Int]>([])
}

/// A stream writer that records its events and the order writers were written in, and claims
/// (for odd names) that another thread sends for it, as a transport's writer on another loop does.
private final class LoopWriter: HTTPStreamWriter {
    let name: Int
    let sendsOnCallingThread: Bool
    private let order: OrderLog
    private let state = Mutex<(text: String, open: Bool, handlers: [@Sendable () -> Void])>(("", true, []))

    init(_ name: Int, order: OrderLog) {
        self.name = name
        self.sendsOnCallingThread = name % 2 == 0
        self.order = order
    }

    func write(_ bytes: [UInt8]) -> Bool {
        let accepted = state.withLock { state in
            guard state.open else { return false }
            state.text += String(decoding: bytes, as: UTF8.self)
            return true
        }
        if accepted { order.names.withLock { $0.append(name) } }
        return accepted
    }

    func finish() { close() }

    /// The peer leaves: refuse further writes and tell whoever registered.
    func close() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard state.open else { return [] }
            state.open = false
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    /// Simulates a peer that vanished without the transport noticing yet: writes are refused but
    /// no close handler has run.
    func refuseSilently() { state.withLock { $0.open = false } }

    var isOpen: Bool { state.withLock { $0.open } }
    var text: String { state.withLock { $0.text } }

    func onClose(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            guard state.open else { return true }
            state.handlers.append(handler)
            return false
        }
        if runNow { handler() }
    }
}

/// One commit fanned out to many streams of one group: hand-overs to other threads first, then
/// the committing thread's own streams; every stream gets every event once and in order.
@Suite struct StreamFanOutTests {
    private func open(_ count: Int, _ db: DatabaseTestClient, order: OrderLog) throws -> [LoopWriter] {
        try (0..<count).map { name in
            let writer = LoopWriter(name, order: order)
            let request = HTTPRequest(
                method: .get, target: "/fan.json?ns=f", headers: HTTPHeaders([("Accept", "text/event-stream")]))
            guard case .stream(let body) = db.emulator.router.respond(to: request).body else {
                throw StreamFanOutError.notAStream
            }
            body.start(writer)
            return writer
        }
    }

    private enum StreamFanOutError: Error { case notAStream }

    @Test func everyStreamGetsEveryEventOnceInOrder() throws {
        let db = DatabaseTestClient()
        let order = OrderLog()
        let writers = try open(6, db, order: order)
        order.names.withLock { $0.removeAll() }
        for n in 1...5 { db.put("/fan.json?ns=f", "\(n)") }
        // Per commit: the odd (handed-over) writers first, then the even ones, each once.
        #expect(order.names.withLock { $0 } == Array(repeating: [1, 3, 5, 0, 2, 4], count: 5).flatMap { $0 })
        for writer in writers {
            let data = events(writer.text).map(\.data)
            #expect(data == [j(#"{"path":"/","data":null}"#)] + (1...5).map { j(#"{"path":"/","data":\#($0)}"#) })
        }
    }

    @Test func streamsClosingMidFanOutAreDroppedAndTheOthersContinue() throws {
        let db = DatabaseTestClient()
        let order = OrderLog()
        let writers = try open(6, db, order: order)
        db.put("/fan.json?ns=f", "1")
        writers[3].close()  // handed over: its close handler forgets it
        writers[2].refuseSilently()  // sent here: refused by the write, dropped by the fan-out
        db.put("/fan.json?ns=f", "2")
        db.put("/fan.json?ns=f", "3")
        #expect(db.emulator.streamCount(namespace: "f") == 4)
        for (index, writer) in writers.enumerated() {
            let numbers = events(writer.text).dropFirst().map(\.data)
            let sent = index == 2 || index == 3 ? 1 : 3
            #expect(numbers == (1...sent).map { j(#"{"path":"/","data":\#($0)}"#) }, "stream \(index)")
        }
    }
}
