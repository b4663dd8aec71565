package import EmulatorSupport
package import SecurityRules

/// The Requests view's JSON: rules decisions from a ``RulesRequestLog``.
///
/// - `GET /api/requests?after=n` → `{"last", "skipped", "recording", "requests": [{"seq", "time",
///   "emulator", "outcome", "method", "path", "uid"}]}`, oldest first, at most `limit` (1,000), the
///   newest when more are waiting.
/// - `GET /api/requests/{seq}` → one record in full: the summary, `message`, `debug`, `lines`
///   (`[{"line", "column", "outcome"}]`), `request`, `resource`, `rules` (`{"fileName", "text"}`).
/// - `DELETE /api/requests` forgets them.
package enum UIRequests {
    package static func page(_ log: RulesRequestLog?, after: Int, limit: Int = 1_000) -> JSONValue {
        guard let log else {
            return .object([
                JSONMember("last", .int(0)), JSONMember("skipped", .bool(false)), JSONMember("recording", .bool(false)),
                JSONMember("requests", .array([])),
            ])
        }
        let page = log.records(after: after, limit: limit)
        return .object([
            JSONMember("last", .int(Int64(page.last))),
            JSONMember("skipped", .bool(page.skipped)),
            JSONMember("recording", .bool(true)),
            JSONMember("requests", .array(page.records.map { summary($0, $0.describe()) })),
        ])
    }

    package static func detail(_ record: RulesRequestRecord) -> JSONValue {
        let description = record.describe()
        guard case .object(var members) = summary(record, description) else { return .null }
        members.append(JSONMember("message", .string(record.message)))
        members.append(JSONMember("debug", .array(record.debugOutput.map { .string($0) })))
        members.append(JSONMember("lines", .array(record.lines.map { line in
            .object([
                JSONMember("line", .int(Int64(line.line))), JSONMember("column", .int(Int64(line.column))),
                JSONMember("outcome", .string(line.outcome.rawValue)),
            ])
        })))
        var budget = detailValues
        members.append(JSONMember("request", bounded(description.request, budget: &budget)))
        budget = detailValues
        members.append(JSONMember("resource", description.resource.map { bounded($0, budget: &budget) } ?? .null))
        if let rules = record.rules {
            members.append(JSONMember("rules", .object([JSONMember("fileName", .string(rules.fileName)), JSONMember("text", .string(rules.text))])))
        } else {
            members.append(JSONMember("rules", .null))
        }
        return .object(members)
    }

    /// At most this many JSON values of `request` and of `resource` go into a detail.
    static let detailValues = 1_000
    /// Longer strings are cut to this many UTF-8 bytes in a detail.
    static let detailStringBytes = 2_000

    /// `value` cut to at most `budget` values (each scalar, array and object counts one) and
    /// strings to ``detailStringBytes``: a detail stays small whatever a rule saw. A cut
    /// object gets a last member `"…"`, a cut array a last element, saying how many were left
    /// out; a cut string ends with `… (N bytes)`.
    static func bounded(_ value: JSONValue, budget: inout Int) -> JSONValue {
        budget -= 1
        switch value {
        case .string(let text):
            let bytes = text.utf8.count
            guard bytes > detailStringBytes else { return value }
            var cut = String(decoding: text.utf8.prefix(detailStringBytes), as: UTF8.self)
            if cut.last == "\u{FFFD}" { cut.removeLast() }
            return .string(cut + "… (\(bytes) bytes)")
        case .array(let items):
            var kept: [JSONValue] = []
            for (i, item) in items.enumerated() {
                if budget <= 0 {
                    kept.append(.string("… \(items.count - i) more"))
                    break
                }
                kept.append(bounded(item, budget: &budget))
            }
            return .array(kept)
        case .object(let members):
            var kept: [JSONMember] = []
            for (i, member) in members.enumerated() {
                if budget <= 0 {
                    kept.append(JSONMember("…", .string("\(members.count - i) more")))
                    break
                }
                kept.append(JSONMember(member.name, bounded(member.value, budget: &budget)))
            }
            return .object(kept)
        default:
            return value
        }
    }

    static func summary(_ record: RulesRequestRecord, _ description: RulesRequestDescription) -> JSONValue {
        .object([
            JSONMember("seq", .int(Int64(record.sequence))),
            JSONMember("time", .int(record.time)),
            JSONMember("emulator", .string(record.emulator.description)),
            JSONMember("outcome", .string(record.outcome.rawValue)),
            JSONMember("method", .string(description.method)),
            JSONMember("path", .string(description.path)),
            JSONMember("uid", description.uid.map { .string($0) } ?? .null),
        ])
    }
}
