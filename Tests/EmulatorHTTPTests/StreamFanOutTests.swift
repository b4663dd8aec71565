import EmulatorHTTP
import Synchronization
import Testing

/// The names of the writers in the order they were written to.
private final class OrderLog: Sendable {
    let names = Mutex<[Int]>([])
}

/// A writer that records the order of writes across writers, and may send on another thread.
private final class OrderedWriter: HTTPStreamWriter {
    let name: Int
    let sendsOnCallingThread: Bool
    private let log: OrderLog
    private let open = Mutex(true)

    init(_ name: Int, remote: Bool, log: OrderLog) {
        self.name = name
        self.sendsOnCallingThread = !remote
        self.log = log
    }

    func write(_ bytes: [UInt8]) -> Bool {
        guard open.withLock({ $0 }) else { return false }
        log.names.withLock { $0.append(name) }
        return true
    }

    func finish() { open.withLock { $0 = false } }
    var isOpen: Bool { open.withLock { $0 } }
    func onClose(_ handler: @escaping @Sendable () -> Void) {}
}

@Suite struct StreamFanOutTests {
    @Test func handOversGoFirstThenTheCallersOwnStreamsEachOnce() {
        let log = OrderLog()
        // Even names send on the calling thread, odd ones hand over to another thread.
        let writers = (0..<8).map { OrderedWriter($0, remote: $0 % 2 == 1, log: log) }
        let refused = HTTPStreamFanOut.write([1], count: writers.count) { writers[$0] }
        #expect(refused.isEmpty)
        #expect(log.names.withLock { $0 } == [1, 3, 5, 7, 0, 2, 4, 6])
    }

    @Test func skippedAndClosedStreamsAreReportedInAscendingOrder() {
        let log = OrderLog()
        let writers = (0..<6).map { OrderedWriter($0, remote: $0 >= 3, log: log) }
        writers[1].finish()
        writers[4].finish()
        let refused = HTTPStreamFanOut.write([1], count: writers.count) { $0 == 2 ? nil : writers[$0] }
        #expect(refused == [1, 4])
        #expect(log.names.withLock { $0 } == [3, 5, 0])
    }

    @Test func collectingWritersSendOnTheCallingThread() {
        let writer = CollectingStreamWriter()
        #expect(writer.sendsOnCallingThread)
        #expect(HTTPStreamFanOut.write(Array("x".utf8), count: 1) { _ in writer }.isEmpty)
        #expect(writer.isOpen)
    }
}
