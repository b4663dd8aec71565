/// The "All emulators ready!" box and table, laid out as the official CLI lays them out.
///
/// The box, the table and the hub line are byte-for-byte the official ones; with the Emulator UI
/// the box adds `i  View Emulator UI at http://127.0.0.1:4000/` and the table a "View in
/// Emulator UI" column. Scripts grep for `All emulators ready`.
///
/// ```
/// ┌─────────────────────────────────────────────────────────────┐
/// │ ✔  All emulators ready! It is now safe to connect your app. │
/// └─────────────────────────────────────────────────────────────┘
///
/// ┌───────────┬────────────────┐
/// │ Emulator  │ Host:Port      │
/// ├───────────┼────────────────┤
/// │ Firestore │ 127.0.0.1:8080 │
/// │ Database  │ 127.0.0.1:9000 │
/// └───────────┴────────────────┘
///   Emulator Hub host: 127.0.0.1 port: 4400
/// ```
package struct ReadyBanner: Sendable, Equatable {
    package struct Row: Sendable, Equatable {
        package var name: String
        package var hostPort: String
        /// The row's page in the Emulator UI; nil when the UI does not run.
        package var uiLink: String?

        package init(name: String, hostPort: String, uiLink: String? = nil) {
            self.name = name
            self.hostPort = hostPort
            self.uiLink = uiLink
        }
    }

    package var rows: [Row]
    package var hubHost: String
    package var hubPort: Int
    /// Ports held but not listed in the table (none yet; the Firestore websocket port later).
    package var reservedPorts: [Int]
    /// `http://127.0.0.1:4000/` when the Emulator UI runs: the box gains its line, the table a column.
    package var uiURL: String?

    package init(rows: [Row], hubHost: String, hubPort: Int, reservedPorts: [Int] = [], uiURL: String? = nil) {
        self.uiURL = uiURL
        self.rows = rows
        self.hubHost = hubHost
        self.hubPort = hubPort
        self.reservedPorts = reservedPorts
    }

    package static let readyMessage = "✔  All emulators ready! It is now safe to connect your app."

    /// The whole banner, starting with an empty line and ending with a newline.
    package var rendered: String {
        var out = "\n"
        if let uiURL {
            out += Self.table(header: nil, rows: [[Self.readyMessage], ["i  View Emulator UI at \(uiURL)"]])
            out += "\n\n"
            out += Self.table(
                header: ["Emulator", "Host:Port", "View in Emulator UI"],
                rows: rows.map { [$0.name, $0.hostPort, $0.uiLink ?? "n/a"] })
        } else {
            out += Self.table(header: nil, rows: [[Self.readyMessage]])
            out += "\n\n"
            out += Self.table(header: ["Emulator", "Host:Port"], rows: rows.map { [$0.name, $0.hostPort] })
        }
        out += "\n  Emulator Hub host: \(hubHost) port: \(hubPort)"
        if !reservedPorts.isEmpty {
            out += "\n  Other reserved ports: " + reservedPorts.map(String.init).joined(separator: ", ")
        }
        out += "\n\nIssues? Report them to the maintainers of this emulators suite and attach the output above.\n"
        return out
    }

    /// A box-drawn table: one space of padding each side, a rule under the header only.
    static func table(header: [String]?, rows: [[String]]) -> String {
        let all = (header.map { [$0] } ?? []) + rows
        let columns = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in all {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count + 2) }
        }
        func rule(_ left: String, _ middle: String, _ right: String) -> String {
            left + widths.map { String(repeating: "─", count: $0) }.joined(separator: middle) + right
        }
        func line(_ cells: [String]) -> String {
            "│" + widths.indices.map { index in
                let cell = index < cells.count ? cells[index] : ""
                return " " + cell + String(repeating: " ", count: widths[index] - cell.count - 1)
            }.joined(separator: "│") + "│"
        }
        var lines = [rule("┌", "┬", "┐")]
        if let header {
            lines.append(line(header))
            lines.append(rule("├", "┼", "┤"))
        }
        lines += rows.map(line)
        lines.append(rule("└", "┴", "┘"))
        return lines.joined(separator: "\n")
    }
}
