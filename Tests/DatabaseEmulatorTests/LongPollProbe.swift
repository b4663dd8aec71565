import EmulatorHTTP
import Foundation
import EmulatorStorage
import EmulatorSupport
import EmulatorTestSupport
import Synchronization

@testable import DatabaseEmulator

/// A long-poll client driven through the emulator's router without sockets, as the JS SDK's
/// BrowserPollConnection talks: `start`, polls carrying base64 segments, answers read back from
/// the `pRTLPCB` / `pLPCommand` scripts. The monotonic clock is the test's (`advance`).
final class LongPollProbe: Sendable {
    let emulator: DatabaseEmulator
    let client: InProcessClient
    let clock = TestClock(1_000_000_000)
    let storage = StorageEngine(keepsHistory: { _ in false })

    init(configure: (inout DatabaseLongPollConfiguration) -> Void = { _ in }, replyGate: ReplyGate? = nil) {
        var configuration = DatabaseEmulatorConfiguration(
            defaultNamespace: "demo-default-rtdb", now: { 1_700_000_000_000 }, keepAliveSeconds: nil, replyGate: replyGate)
        let clock = self.clock
        configuration.monotonicNanos = { clock.now }
        var longPoll = DatabaseLongPollConfiguration()
        configure(&longPoll)
        configuration.longPoll = longPoll
        let emulator = DatabaseEmulator(storage: storage, configuration: configuration)
        self.emulator = emulator
        client = InProcessClient(router: emulator.router)
    }

    /// An owner's REST write.
    @discardableResult
    func put(_ path: String, _ body: String) -> HTTPResponse {
        client.put("\(path).json?ns=lp", body: body, headers: [("Authorization", "Bearer owner")])
    }

    /// The value at `path`, read as the owner.
    func value(_ path: String) -> JSONValue? {
        try? JSONReader.parse(client.get("\(path).json?ns=lp", headers: [("Authorization", "Bearer owner")]).bodyBytes)
    }

    /// Moves the monotonic clock on and runs the expiry sweep.
    func advance(seconds: Int64) {
        clock.set(clock.now + seconds * 1_000_000_000)
        emulator.longPolls.sweep()
    }

    /// One connection.
    final class Connection: Sendable {
        let probe: LongPollProbe
        let id: String
        let password: String
        let callback: String
        private let segment = Mutex(0)
        private let serial = Mutex(0)

        init(probe: LongPollProbe, id: String, password: String, callback: String) {
            self.probe = probe
            self.id = id
            self.password = password
            self.callback = callback
        }

        /// The segments of `messages`, numbered on from the last ones sent.
        func segments(_ messages: [String], size: Int = 1840) -> [DatabaseLongPollSegment] {
            segment.withLock { next in
                var out: [DatabaseLongPollSegment] = []
                for message in messages {
                    let pieces = LongPollFramingTests.segments(message, first: next, size: size)
                    next += pieces.count
                    out += pieces
                }
                return out
            }
        }

        /// The query of a poll carrying `segments`.
        func target(_ segments: [DatabaseLongPollSegment]) -> String {
            let ser = serial.withLock { s -> Int in
                s += 1
                return s
            }
            var target = "/.lp?id=\(id)&pw=\(password)&ser=\(ser)&ns=lp"
            for (i, s) in segments.enumerated() { target += "&seg\(i)=\(s.number)&ts\(i)=\(s.total)&d\(i)=\(s.data)" }
            return target
        }

        /// A poll: its answer now, or the held stream (`writer` collects what it gets later).
        func poll(_ messages: [String] = []) -> InProcessClient.StreamedResponse {
            poll(segments: segments(messages))
        }

        func poll(segments: [DatabaseLongPollSegment]) -> InProcessClient.StreamedResponse {
            probe.client.stream(HTTPRequest(method: .get, target: target(segments)))
        }

        /// A poll expected to be answered at once: its packets.
        func exchange(_ messages: [String]) -> LongPollAnswer {
            let response = poll(messages)
            return LongPollAnswer(response.writer.text)
        }
    }

    /// `start=t`: the connection and the start answer.
    func start(callback: String = "1", namespace: String = "lp") -> (Connection, LongPollAnswer) {
        let response = client.get("/.lp?start=t&ser=5&cb=\(callback)&v=5&ns=\(namespace)", headers: [("Host", "127.0.0.1:9000")])
        let answer = LongPollAnswer(String(decoding: response.bodyBytes, as: UTF8.self))
        let connection = Connection(
            probe: self, id: answer.start?.id ?? "", password: answer.start?.password ?? "", callback: callback)
        return (connection, answer)
    }
}

/// The calls in a long-poll answer script: the `start` command, packets and the close.
struct LongPollAnswer: Equatable {
    var start: (id: String, password: String)?
    var packets: [(number: Int, messages: [String])] = []
    /// `close` and its argument (nil when it has none).
    var close: Int??
    let text: String

    init(_ text: String) {
        self.text = text
        for line in text.split(separator: "\n") {
            if line.contains(#"f("start","#), let args = Self.between(line, #"f("start","#, ");})();") {
                let parts = args.split(separator: ",").map { $0.trimmingQuotes() }
                if parts.count == 2 { start = (parts[0], parts[1]) }
            } else if line.contains(#"f("close""#) {
                let rest = Self.between(line, #"f("close""#, ");})();") ?? ""
                close = .some(rest.hasPrefix(",") ? Int(rest.dropFirst()) : nil)
            }
        }
        packets = LongPollScriptReader.packets(text)
    }

    /// Every message of every packet, in packet order.
    var messages: [String] { packets.sorted { $0.number < $1.number }.flatMap(\.messages) }

    static func == (a: LongPollAnswer, b: LongPollAnswer) -> Bool { a.text == b.text }

    private static func between(_ text: some StringProtocol, _ open: String, _ close: String?) -> String? {
        guard let start = text.range(of: open) else { return nil }
        let tail = text[start.upperBound...]
        guard let close else { return String(tail) }
        guard let end = tail.range(of: close, options: .backwards) else { return nil }
        return String(tail[..<end.lowerBound])
    }
}

extension Substring {
    fileprivate func trimmingQuotes() -> String { String(self.dropFirst().dropLast()) }
}
