import Foundation
import Synchronization

/// A Server-Sent Events stream read on its own thread.
///
/// Events arrive through `onEvent(name, data)`; `onEnd` runs once when the stream ends for any
/// reason other than ``cancel()``. Cancelling is seen within ~200 ms (the socket's read timeout).
final class EventStream: Sendable {
    private let cancelled = Atomic<Bool>(false)

    init(
        host: String, port: Int, target: String, headers: [(String, String)],
        onEvent: @escaping @Sendable (String, String) -> Void,
        onEnd: @escaping @Sendable (String) -> Void
    ) {
        let thread = Thread { [self] in
            self.run(host: host, port: port, target: target, headers: headers, onEvent: onEvent, onEnd: onEnd)
        }
        thread.name = "EventStream \(target)"
        thread.start()
    }

    func cancel() { cancelled.store(true, ordering: .relaxed) }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    private func run(
        host: String, port: Int, target: String, headers: [(String, String)],
        onEvent: @Sendable (String, String) -> Void, onEnd: @Sendable (String) -> Void
    ) {
        do {
            let connection = try HTTPConnection(host: host, port: port)
            let client = HTTPClient(host: host, port: port)
            let head = client.requestHead(
                method: "GET", target: target,
                headers: headers + [("Accept", "text/event-stream"), ("Cache-Control", "no-cache")], bodyCount: 0)
            try connection.send(head)
            connection.setReceiveTimeout(seconds: 0, microseconds: 200_000)
            var parser = HTTPResponseParser(streaming: true)
            var scratch = [UInt8](repeating: 0, count: 64 * 1024)
            var events = ServerSentEventParser()
            while !isCancelled {
                let open: Bool
                do throws(ClientTransportError) {
                    open = try connection.receive(into: &parser, scratch: &scratch)
                } catch {
                    if error.isTimeout { continue }
                    throw error
                }
                if parser.hasHead && parser.response.status != 200 {
                    while !parser.isComplete, try connection.receive(into: &parser, scratch: &scratch) {}
                    let detail = String(decoding: parser.takeStreamBytes(), as: UTF8.self)
                    if !isCancelled { onEnd("HTTP \(parser.response.status): \(detail)") }
                    return
                }
                for event in events.feed(parser.takeStreamBytes()) where !isCancelled {
                    onEvent(event.name, event.data)
                }
                if !open || parser.isComplete {
                    if !isCancelled { onEnd("stream closed") }
                    return
                }
            }
        } catch {
            if !isCancelled { onEnd("\(error)") }
        }
    }
}

/// Splits an event-stream body into events (`event:` name and joined `data:` lines).
struct ServerSentEventParser: Sendable {
    struct Event: Sendable, Equatable {
        var name: String
        var data: String
    }

    private var pending: [UInt8] = []
    private var name = ""
    private var data: [String] = []

    mutating func feed(_ bytes: [UInt8]) -> [Event] {
        pending.append(contentsOf: bytes)
        var out: [Event] = []
        var lineStart = 0
        var i = 0
        while i < pending.count {
            if pending[i] == 10 {
                var end = i
                if end > lineStart && pending[end - 1] == 13 { end -= 1 }
                line(pending[lineStart..<end], into: &out)
                lineStart = i + 1
            }
            i += 1
        }
        pending.removeFirst(lineStart)
        return out
    }

    private mutating func line(_ bytes: ArraySlice<UInt8>, into out: inout [Event]) {
        if bytes.isEmpty {
            if !data.isEmpty || !name.isEmpty {
                out.append(Event(name: name.isEmpty ? "message" : name, data: data.joined(separator: "\n")))
            }
            name = ""
            data = []
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix(":") { return }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value.removeFirst() }
        } else {
            field = Substring(text)
            value = ""
        }
        switch field {
        case "event": name = String(value)
        case "data": data.append(String(value))
        default: break
        }
    }
}
