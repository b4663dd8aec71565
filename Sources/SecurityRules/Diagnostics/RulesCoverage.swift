package import EmulatorSupport
import Synchronization

/// How often each rule of one rules file ran, and how it came out: what the emulators' coverage
/// reports (Firestore `:ruleCoverage`, the Realtime Database `/.inspect/coverage`) show. One per
/// installed rules file; new rules start a new count.
///
/// A rule is an `allow` condition (Firestore) or a `.read`/`.write`/`.validate` expression (the
/// Realtime Database), keyed by where it starts in the file. Within rules, the sub-expressions
/// the parsers mark (``RulesExpressionSpan``: the clauses of `&&` / `||`, the condition of `?:`)
/// are counted too, by index into a flat array: each evaluation and its result (true, false,
/// error, another value). A sub-expression whose rule's outcome was reused rather than
/// re-evaluated (Firestore's batch cache of conditions that read only the caller) is not
/// counted again: the counts are the evaluations that happened.
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

    /// How often one sub-expression ran and how it came out.
    package struct ExpressionCounts: Sendable, Hashable {
        package var isTrue = 0
        package var isFalse = 0
        package var error = 0
        package var other = 0
        package var total: Int { isTrue + isFalse + error + other }
    }

    package struct ExpressionEntry: Sendable, Hashable {
        package var span: RulesExpressionSpan
        /// The span's byte range in the file.
        package var start: Int
        package var end: Int
        package var counts: ExpressionCounts
    }

    package let source: RulesSourceText
    /// Every rule of the file, so that rules that never ran are reported too.
    private let known: [SourcePosition]
    private let counts = Mutex<[SourcePosition: Counts]>([:])
    /// The counted sub-expressions, indexed as ``RulesExpressionHit`` numbers them.
    package let expressionSpans: [RulesExpressionSpan]
    private let expressionCounts: Mutex<[ExpressionCounts]>
    /// Up to two rules counted without the lock (``addAllowed(slot:)``): the root `.read` and
    /// `.write` that open RTDB rules grant every request by.
    private let quick: [SourcePosition]
    private let quick0 = Atomic<Int>(0)
    private let quick1 = Atomic<Int>(0)

    package init(
        source: RulesSourceText, rules: [SourcePosition], quick: [SourcePosition] = [], expressions: [RulesExpressionSpan] = []
    ) {
        self.source = source
        self.known = rules
        self.quick = Array(quick.prefix(2))
        self.expressionSpans = expressions
        self.expressionCounts = Mutex(Array(repeating: ExpressionCounts(), count: expressions.count))
    }

    /// Counts the rules and sub-expressions of one decision (``RulesDecision/evaluated`` and
    /// ``RulesDecision/expressions``).
    package func add(_ decision: RulesDecision) {
        add(decision.evaluated)
        add(expressions: decision.expressions)
    }

    /// Counts sub-expression evaluations (``RulesExpressionHit``); indexes out of range are ignored.
    package func add(expressions hits: [UInt32]) {
        if hits.isEmpty { return }
        expressionCounts.withLock { counts in
            for hit in hits {
                let index = Int(hit >> 2)
                guard index < counts.count else { continue }
                switch hit & 3 {
                case RulesExpressionHit.isTrue: counts[index].isTrue += 1
                case RulesExpressionHit.isFalse: counts[index].isFalse += 1
                case RulesExpressionHit.isError: counts[index].error += 1
                default: counts[index].other += 1
                }
            }
        }
    }

    /// Every counted sub-expression in file order, with its counts and its byte range in the file.
    package var expressionEntries: [ExpressionEntry] {
        let counted = expressionCounts.withLock { $0 }
        let offsets = LineOffsets(source.text)
        var entries: [ExpressionEntry] = []
        entries.reserveCapacity(expressionSpans.count)
        for (i, span) in expressionSpans.enumerated() {
            var start = span.start
            var end = span.end
            if let rule = span.rule {
                // An offset into a JSON string's decoded text: map it through the string's escapes.
                let opening = offsets.offset(line: rule.line, column: rule.column)
                start = offsets.jsonStringOffset(opening: opening, decoded: span.start)
                end = offsets.jsonStringOffset(opening: opening, decoded: span.end)
            }
            entries.append(ExpressionEntry(span: span, start: start, end: end, counts: i < counted.count ? counted[i] : ExpressionCounts()))
        }
        return entries.sorted { ($0.start, -$0.end) < ($1.start, -$1.end) }
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
    /// `{"error": true, "count": n}`. So is `"expressions"`: the counted sub-expressions in the
    /// same shape (a result that is not a boolean: `{"nonBoolean": true, "count": n}`).
    package func json() -> JSONValue {
        let offsets = LineOffsets(source.text)
        func position(line: Int, column: Int, start: Int, end: Int) -> JSONValue {
            .object([
                JSONMember("fileName", .string(source.fileName)),
                JSONMember("line", .int(Int64(line))),
                JSONMember("column", .int(Int64(column))),
                JSONMember("currentOffset", .int(Int64(start))),
                JSONMember("endOffset", .int(Int64(end))),
            ])
        }
        func value(_ b: Bool, _ n: Int) -> JSONValue {
            .object([JSONMember("value", .object([JSONMember("boolValue", .bool(b))])), JSONMember("count", .int(Int64(n)))])
        }
        func flag(_ name: String, _ n: Int) -> JSONValue { .object([JSONMember(name, .bool(true)), JSONMember("count", .int(Int64(n)))]) }
        let report: [JSONValue] = entries.map { entry in
            let start = offsets.offset(line: entry.line, column: entry.column)
            var members = [JSONMember("sourcePosition", position(line: entry.line, column: entry.column, start: start, end: offsets.expressionEnd(from: start)))]
            var values: [JSONValue] = []
            if entry.counts.allow > 0 { values.append(value(true, entry.counts.allow)) }
            if entry.counts.deny > 0 { values.append(value(false, entry.counts.deny)) }
            if entry.counts.error > 0 { values.append(flag("error", entry.counts.error)) }
            if !values.isEmpty { members.append(JSONMember("values", .array(values))) }
            return .object(members)
        }
        let expressions: [JSONValue] = expressionEntries.map { entry in
            let at = offsets.position(of: entry.start)
            var members = [JSONMember("sourcePosition", position(line: at.line, column: at.column, start: entry.start, end: entry.end))]
            var values: [JSONValue] = []
            if entry.counts.isTrue > 0 { values.append(value(true, entry.counts.isTrue)) }
            if entry.counts.isFalse > 0 { values.append(value(false, entry.counts.isFalse)) }
            if entry.counts.other > 0 { values.append(flag("nonBoolean", entry.counts.other)) }
            if entry.counts.error > 0 { values.append(flag("error", entry.counts.error)) }
            if !values.isEmpty { members.append(JSONMember("values", .array(values))) }
            return .object(members)
        }
        return .object([
            JSONMember("rules", .object([JSONMember("files", .array([.object([
                JSONMember("name", .string(source.fileName)), JSONMember("content", .string(source.text)),
            ])]))])),
            JSONMember("report", .array(report)),
            JSONMember("expressions", .array(expressions)),
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
        // The sub-expressions: where, the text, how often and how each came out.
        let expressions = expressionEntries
        let bytes = Array(source.text.utf8)
        let offsets = LineOffsets(source.text)
        var expressionRows = ""
        for entry in expressions {
            let c = entry.counts
            let cls = c.total == 0 ? "none" : c.isTrue > 0 && c.total > c.isTrue ? "both" : c.isTrue > 0 ? "allow" : "deny"
            let at = offsets.position(of: entry.start)
            var text = String(decoding: bytes[min(entry.start, bytes.count)..<min(max(entry.start, entry.end), bytes.count)], as: UTF8.self)
            if text.count > 160 { text = String(text.prefix(160)) + "…" }
            let note = c.total == 0 ? "never ran" : "\(c.total)× — true \(c.isTrue), false \(c.isFalse), error \(c.error)" + (c.other > 0 ? ", other \(c.other)" : "")
            expressionRows += "<tr class=\"\(cls)\"><td class=\"n\">\(at.line):\(at.column)</td><td class=\"c\">\(Self.escape(text))</td><td class=\"note\">\(Self.escape(note))</td></tr>\n"
        }
        let expressionsRan = expressions.filter { $0.counts.total > 0 }.count
        let expressionSection =
            expressions.isEmpty
            ? ""
            : """
                <h2>Expressions</h2>
                <p>\(expressionsRan) of \(expressions.count) sub-expressions (clauses of &amp;&amp; and ||, conditions of ?:) ran.</p>
                <table id="expressions">
                \(expressionRows)</table>
                """
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
            \(expressionSection)
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

    /// The 1-based line and column (UTF-8 bytes) of a byte offset.
    func position(of offset: Int) -> SourcePosition {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return SourcePosition(line: low + 1, column: offset - starts[low] + 1)
    }

    /// The file offset of byte `decoded` of the JSON string whose opening quote is at `opening`:
    /// walks the string's escapes (`\"`, `\n`, `\uXXXX`…). Past the string's end: its closing quote.
    func jsonStringOffset(opening: Int, decoded: Int) -> Int {
        var i = opening + 1
        var produced = 0
        while i < bytes.count, bytes[i] != UInt8(ascii: "\""), produced < decoded {
            if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count {
                if bytes[i + 1] == UInt8(ascii: "u"), i + 5 < bytes.count {
                    // One code point of up to three UTF-8 bytes (surrogate pairs: four, from twelve).
                    let hex = String(decoding: bytes[(i + 2)..<(i + 6)], as: UTF8.self)
                    let unit = UInt32(hex, radix: 16) ?? 0
                    produced += unit < 0x80 ? 1 : unit < 0x800 ? 2 : (0xD800..<0xDC00).contains(unit) ? 2 : (0xDC00..<0xE000).contains(unit) ? 2 : 3
                    i += 6
                } else {
                    produced += 1
                    i += 2
                }
            } else {
                produced += 1
                i += 1
            }
        }
        return i
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
