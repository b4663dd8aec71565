package import EmulatorSupport
import Synchronization

/// How often each rule of one rules file ran, and how it came out: what the emulators' coverage
/// reports (Firestore `:ruleCoverage`, the Realtime Database `/.inspect/coverage`) show. One per
/// installed rules file; new rules start a new count.
///
/// A rule is an `allow` condition (Firestore) or a `.read`/`.write`/`.validate` expression (the
/// Realtime Database), keyed by where it starts in the file.
package final class RulesCoverage: Sendable {
    package struct Counts: Sendable, Hashable {
        package var allow = 0
        package var deny = 0
        package var error = 0
        package var total: Int { allow + deny + error }
    }

    package struct Entry: Sendable, Hashable {
        package var line: Int
        package var column: Int
        package var counts: Counts
    }

    package let source: RulesSourceText
    /// Every rule of the file, so that rules that never ran are reported too.
    private let known: [SourcePosition]
    private let counts = Mutex<[SourcePosition: Counts]>([:])
    /// Up to two rules counted without the lock (``addAllowed(slot:)``): the root `.read` and
    /// `.write` that open RTDB rules grant every request by.
    private let quick: [SourcePosition]
    private let quick0 = Atomic<Int>(0)
    private let quick1 = Atomic<Int>(0)

    package init(source: RulesSourceText, rules: [SourcePosition], quick: [SourcePosition] = []) {
        self.source = source
        self.known = rules
        self.quick = Array(quick.prefix(2))
    }

    /// Counts one grant by the rule `quick[slot]` (one atomic add: the hot path of open rules).
    package func addAllowed(slot: Int) {
        if slot == 0 { quick0.add(1, ordering: .relaxed) } else { quick1.add(1, ordering: .relaxed) }
    }

    package func add(_ lines: [RulesLineOutcome]) {
        if lines.isEmpty { return }
        counts.withLock { counts in
            for line in lines {
                let key = SourcePosition(line: line.line, column: line.column)
                switch line.outcome {
                case .allow: counts[key, default: Counts()].allow += 1
                case .deny: counts[key, default: Counts()].deny += 1
                case .error, .owner: counts[key, default: Counts()].error += 1
                }
            }
        }
    }

    /// Every rule in file order, with its counts (zero for rules that never ran).
    package var entries: [Entry] {
        var counted = counts.withLock { $0 }
        for (slot, position) in quick.enumerated() {
            let n = slot == 0 ? quick0.load(ordering: .relaxed) : quick1.load(ordering: .relaxed)
            if n > 0 { counted[position, default: Counts()].allow += n }
        }
        var positions = Set(known)
        positions.formUnion(counted.keys)
        return positions.sorted { ($0.line, $0.column) < ($1.line, $1.column) }.map {
            Entry(line: $0.line, column: $0.column, counts: counted[$0] ?? Counts())
        }
    }

    /// The report as JSON, in the shape the official Firestore emulator's `:ruleCoverage` uses:
    /// `{"rules": {"files": [{"name", "content"}]}, "report": [{"sourcePosition": {"fileName",
    /// "line", "column", "currentOffset", "endOffset"}, "values": [{"value": {"boolValue": b}, "count": n}]}]}`,
    /// `values` left out for a rule that never ran. Evaluation errors are ours:
    /// `{"error": true, "count": n}`.
    package func json() -> JSONValue {
        let offsets = LineOffsets(source.text)
        let report: [JSONValue] = entries.map { entry in
            let start = offsets.offset(line: entry.line, column: entry.column)
            var position: [JSONMember] = [
                JSONMember("fileName", .string(source.fileName)),
                JSONMember("line", .int(Int64(entry.line))),
                JSONMember("column", .int(Int64(entry.column))),
                JSONMember("currentOffset", .int(Int64(start))),
            ]
            position.append(JSONMember("endOffset", .int(Int64(offsets.expressionEnd(from: start)))))
            var members = [JSONMember("sourcePosition", .object(position))]
            var values: [JSONValue] = []
            if entry.counts.allow > 0 {
                values.append(.object([JSONMember("value", .object([JSONMember("boolValue", .bool(true))])), JSONMember("count", .int(Int64(entry.counts.allow)))]))
            }
            if entry.counts.deny > 0 {
                values.append(.object([JSONMember("value", .object([JSONMember("boolValue", .bool(false))])), JSONMember("count", .int(Int64(entry.counts.deny)))]))
            }
            if entry.counts.error > 0 {
                values.append(.object([JSONMember("error", .bool(true)), JSONMember("count", .int(Int64(entry.counts.error)))]))
            }
            if !values.isEmpty { members.append(JSONMember("values", .array(values))) }
            return .object(members)
        }
        return .object([
            JSONMember("rules", .object([JSONMember("files", .array([.object([
                JSONMember("name", .string(source.fileName)), JSONMember("content", .string(source.text)),
            ])]))])),
            JSONMember("report", .array(report)),
        ])
    }

    /// The report as a page: the rules file, each line that holds a rule marked by how it came
    /// out (green: only true, red: never true, yellow: both, grey: never ran) with its counts.
    package func html(title: String) -> String {
        var byLine: [Int: Counts] = [:]
        var ruleLines = Set<Int>()
        for entry in entries {
            ruleLines.insert(entry.line)
            var c = byLine[entry.line] ?? Counts()
            c.allow += entry.counts.allow
            c.deny += entry.counts.deny
            c.error += entry.counts.error
            byLine[entry.line] = c
        }
        var rows = ""
        let lines = source.text.split(separator: "\n", omittingEmptySubsequences: false)
        for (i, text) in lines.enumerated() {
            let number = i + 1
            var cls = ""
            var note = ""
            if ruleLines.contains(number), let c = byLine[number] {
                if c.total == 0 {
                    cls = "none"
                    note = "never ran"
                } else {
                    cls = c.allow > 0 && (c.deny + c.error) > 0 ? "both" : c.allow > 0 ? "allow" : "deny"
                    note = "\(c.total)× — true \(c.allow), false \(c.deny), error \(c.error)"
                }
            }
            rows += "<tr class=\"\(cls)\"><td class=\"n\">\(number)</td><td class=\"c\" title=\"\(Self.escape(note))\">\(Self.escape(String(text)))</td><td class=\"note\">\(Self.escape(note))</td></tr>\n"
        }
        let all = entries
        let ran = all.filter { $0.counts.total > 0 }.count
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(Self.escape(title))</title>
            <style>
            body{font:14px system-ui,sans-serif;margin:16px;color:#1f2328}
            table{border-collapse:collapse;font:13px ui-monospace,monospace}
            td{padding:0 8px;white-space:pre;vertical-align:top}
            td.n{color:#8c959f;text-align:right;user-select:none}
            td.note{color:#57606a;font-family:system-ui,sans-serif;font-size:12px}
            tr.allow td.c{background:#dafbe1} tr.deny td.c{background:#ffebe9} tr.both td.c{background:#fff8c5} tr.none td.c{background:#eaeef2}
            .legend span{display:inline-block;padding:0 6px;margin-right:6px}
            </style></head><body>
            <h1>\(Self.escape(title))</h1>
            <p>\(Self.escape(source.fileName)): \(ran) of \(all.count) rules ran.</p>
            <p class="legend"><span style="background:#dafbe1">only true</span><span style="background:#ffebe9">never true</span><span style="background:#fff8c5">true and false</span><span style="background:#eaeef2">never ran</span></p>
            <table id="coverage">
            \(rows)</table>
            </body></html>
            """
    }

    /// A report page without rules: `message` says why.
    package static func emptyPage(title: String, message: String) -> String {
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>\(escape(title))</title></head><body><h1>\(escape(title))</h1><p>\(escape(message))</p></body></html>"
    }

    /// The empty report: no rules file.
    package static let emptyJSON: JSONValue = .object([
        JSONMember("rules", .object([JSONMember("files", .array([]))])), JSONMember("report", .array([])),
    ])

    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

/// Byte offsets of a source text's lines, for `currentOffset`/`endOffset`.
struct LineOffsets {
    let bytes: [UInt8]
    var starts: [Int] = [0]

    init(_ text: String) {
        bytes = Array(text.utf8)
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") { starts.append(i + 1) }
    }

    /// The offset of a 1-based line and column (UTF-8 bytes), clamped to the text.
    func offset(line: Int, column: Int) -> Int {
        guard line >= 1, line <= starts.count else { return bytes.count }
        return min(bytes.count, starts[line - 1] + max(0, column - 1))
    }

    /// Where the expression starting at `start` ends: before the first `;` (Firestore) or the
    /// closing quote of a JSON string (the Realtime Database), outside quotes and brackets, or
    /// before a bracket that closes one opened earlier.
    func expressionEnd(from start: Int) -> Int {
        var i = start
        var depth = 0
        var quote: UInt8?
        if i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
            // A JSON string: its end is the closing quote.
            i += 1
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "\\") { i += 2; continue }
                if bytes[i] == UInt8(ascii: "\"") { return i + 1 }
                i += 1
            }
            return bytes.count
        }
        while i < bytes.count {
            let b = bytes[i]
            if let q = quote {
                if b == UInt8(ascii: "\\") { i += 2; continue }
                if b == q { quote = nil }
            } else if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") {
                quote = b
            } else if b == UInt8(ascii: "(") || b == UInt8(ascii: "[") || b == UInt8(ascii: "{") {
                depth += 1
            } else if b == UInt8(ascii: ")") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}") {
                if depth == 0 { return i }
                depth -= 1
            } else if depth == 0, b == UInt8(ascii: ";") || b == UInt8(ascii: ",") {
                return i
            }
            i += 1
        }
        return bytes.count
    }
}
