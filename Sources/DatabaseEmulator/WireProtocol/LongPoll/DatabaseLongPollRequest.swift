/// What a request to `/.lp` asks for, from its query (`BrowserPollConnection.ts` names them):
///
/// - `start=t&ser=<n>&cb=<n>&v=5[&ns=…][&ls=…][&p=…][&ac=…]`: open a connection.
/// - `id=<id>&pw=<pw>&ser=<n>[&seg<i>=…&ts<i>=…&d<i>=…]…`: a poll, carrying client messages.
/// - `dframe=t&id&pw`: the disconnect iframe's page.
/// - `disconn=t&id&pw`: the client is leaving (sent by that page as it unloads).
enum DatabaseLongPollRequest: Equatable, Sendable {
    case start(callback: String)
    case poll(id: String, password: String, segments: [DatabaseLongPollSegment])
    case disconnectFrame(id: String, password: String)
    case disconnect(id: String, password: String)

    /// A request that is none of these; the text says why.
    struct Malformed: Error, Equatable, Sendable {
        var message: String
    }

    /// At most this many segments in one request (the SDK fits one or two in its 1,870-character
    /// URLs; the HTTP parser bounds the URL itself).
    static let maxSegmentsPerRequest = 512

    static func parse(_ items: [(name: String, value: String)]) throws(Malformed) -> DatabaseLongPollRequest {
        var start = false, frame = false, leave = false
        var id: String?, password: String?, callback: String?
        var parts: [Int: (seg: String?, ts: String?, d: String?)] = [:]
        for (name, value) in items {
            switch name {
            case "start": start = true
            case "dframe": frame = true
            case "disconn": leave = true
            case "id": id = value
            case "pw": password = value
            case "cb": callback = value
            default:
                guard let (kind, index) = segmentParameter(name) else { continue }
                guard parts[index] != nil || parts.count < maxSegmentsPerRequest else {
                    throw Malformed(message: "A long poll carries at most \(maxSegmentsPerRequest) segments.")
                }
                var part = parts[index] ?? (nil, nil, nil)
                switch kind {
                case .seg: part.seg = value
                case .ts: part.ts = value
                case .d: part.d = value
                }
                parts[index] = part
            }
        }
        if start {
            let callback = callback ?? ""
            guard callback.utf8.count <= 16, callback.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw Malformed(message: "The long-poll callback id (cb) must be a number.")
            }
            return .start(callback: callback)
        }
        guard let id, let password, !id.isEmpty else {
            throw Malformed(message: "A long poll names its connection with id and pw, or starts one with start=t.")
        }
        if frame { return .disconnectFrame(id: id, password: password) }
        if leave { return .disconnect(id: id, password: password) }
        var segments: [DatabaseLongPollSegment] = []
        segments.reserveCapacity(parts.count)
        for (index, part) in parts.sorted(by: { $0.key < $1.key }) {
            guard let seg = part.seg.flatMap(number), let ts = part.ts.flatMap(number), let d = part.d else {
                throw Malformed(message: "Long-poll segment \(index) needs a numeric seg\(index) and ts\(index), and d\(index).")
            }
            segments.append(DatabaseLongPollSegment(number: seg, total: ts, data: d))
        }
        return .poll(id: id, password: password, segments: segments)
    }

    private enum SegmentParameter { case seg, ts, d }

    /// `seg12` → (.seg, 12).
    private static func segmentParameter(_ name: String) -> (SegmentParameter, Int)? {
        let kind: SegmentParameter
        let digits: Substring
        if name.hasPrefix("seg") {
            kind = .seg
            digits = name.dropFirst(3)
        } else if name.hasPrefix("ts") {
            kind = .ts
            digits = name.dropFirst(2)
        } else if name.hasPrefix("d") {
            kind = .d
            digits = name.dropFirst(1)
        } else {
            return nil
        }
        guard let index = number(digits) else { return nil }
        return (kind, index)
    }

    /// A decimal number of at most 15 digits (no sign, no spaces).
    private static func number<S: StringProtocol>(_ text: S) -> Int? {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= 15, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(String(text))
    }
}
