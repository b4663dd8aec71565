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
        members.append(JSONMember("request", description.request))
        members.append(JSONMember("resource", description.resource ?? .null))
        if let rules = record.rules {
            members.append(JSONMember("rules", .object([JSONMember("fileName", .string(rules.fileName)), JSONMember("text", .string(rules.text))])))
        } else {
            members.append(JSONMember("rules", .null))
        }
        return .object(members)
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
