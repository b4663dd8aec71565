/// One Server-Sent Event, formatted for a `text/event-stream` body.
///
/// ```swift
/// ServerSentEvent(event: "put", data: #"{"path":"/","data":1}"#).bytes
/// // "event: put\ndata: {\"path\":\"/\",\"data\":1}\n\n"
/// ```
package struct ServerSentEvent: Sendable, Hashable {
    package var event: String?
    package var data: String
    package var id: String?
    /// Reconnection delay the client should use, in milliseconds.
    package var retry: Int?

    package init(event: String? = nil, data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }

    /// The wire form: one `data:` line per line of `data`, ended by a blank line. Line breaks in
    /// `event` and `id` are dropped, since they would end the field early.
    package var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.utf8.count + 32)
        if let event { Self.appendField("event", event, into: &out) }
        if let id { Self.appendField("id", id, into: &out) }
        if let retry {
            out.append(contentsOf: "retry: ".utf8)
            HTTP1ResponseEncoder.appendDecimal(retry, into: &out)
            out.append(.lf)
        }
        var line: [UInt8] = []
        var previousCR = false
        for byte in data.utf8 {
            if byte == .lf, previousCR {
                previousCR = false
                continue
            }
            previousCR = byte == .cr
            if byte == .cr || byte == .lf {
                out.append(contentsOf: "data: ".utf8)
                out.append(contentsOf: line)
                out.append(.lf)
                line.removeAll(keepingCapacity: true)
            } else {
                line.append(byte)
            }
        }
        out.append(contentsOf: "data: ".utf8)
        out.append(contentsOf: line)
        out.append(.lf)
        out.append(.lf)
        return out
    }

    /// A comment line (`: text\n\n`), used as a keep-alive that clients ignore.
    package static func comment(_ text: String) -> [UInt8] {
        var out: [UInt8] = Array(": ".utf8)
        out.append(contentsOf: text.utf8.filter { $0 != .cr && $0 != .lf })
        out.append(contentsOf: [.lf, .lf])
        return out
    }

    /// Headers for an event-stream response.
    package static var responseHeaders: HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/event-stream")
        headers.add("Cache-Control", "no-cache")
        return headers
    }

    private static func appendField(_ name: String, _ value: String, into out: inout [UInt8]) {
        out.append(contentsOf: name.utf8)
        out.append(contentsOf: ": ".utf8)
        out.append(contentsOf: value.utf8.filter { $0 != .cr && $0 != .lf })
        out.append(.lf)
    }
}
