package import EmulatorSupport
import Synchronization

/// The suite's most recent log lines, for the UI's Logs view: a ring of at most `capacity`
/// lines, each numbered, so a page polling `after: n` gets only what it has not seen.
///
/// ```swift
/// let book = UILogBook(capacity: 2_000)
/// book.append(level: "info", scope: "firestore", text: "Firestore Emulator listening on 127.0.0.1:8080")
/// book.lines(after: 0).lines.count // 1
/// ```
package final class UILogBook: Sendable {
    package struct Line: Sendable, Equatable {
        /// 1, 2, 3, … in order of arrival; never reused, also after `clear()`.
        package var sequence: Int
        /// Milliseconds since the Unix epoch.
        package var time: Int64
        /// `debug`, `info`, `success`, `warning` or `error`.
        package var level: String
        /// `firestore`, `database`, `hub`, `emulators`, … or empty.
        package var scope: String
        package var text: String
    }

    /// What `lines(after:)` returns: the lines newer than asked, the newest sequence number,
    /// and whether lines between the one asked for and the oldest kept were dropped.
    package struct Page: Sendable, Equatable {
        package var lines: [Line]
        package var last: Int
        package var skipped: Bool
    }

    package let capacity: Int
    /// Longer texts are cut: one runaway line must not hold the memory of many.
    package static let maximumTextLength = 4_096
    private let state: Mutex<NumberedRing<Line>>
    private let clock: @Sendable () -> Int64

    package init(capacity: Int = 2_000, clock: @escaping @Sendable () -> Int64 = UILogBook.wallClockMilliseconds) {
        self.capacity = max(1, capacity)
        self.state = Mutex(NumberedRing(capacity: capacity))
        self.clock = clock
    }

    package func append(level: String, scope: String, text: String) {
        let cut = text.utf8.count > Self.maximumTextLength ? String(text.prefix(Self.maximumTextLength)) + "…" : text
        let time = clock()
        state.withLock { ring in
            ring.append { Line(sequence: $0, time: time, level: level, scope: scope, text: cut) }
        }
    }

    /// The kept lines with a sequence number above `after`, oldest first, at most `limit`.
    package func lines(after: Int, limit: Int = 1_000) -> Page {
        state.withLock { ring in
            let newer = ring.newer(than: after).map(\.element)
            let skipped = (newer.first?.sequence ?? ring.last + 1) > after + 1 && after < ring.last
            return Page(lines: Array(newer.prefix(max(0, limit))), last: ring.last, skipped: skipped)
        }
    }

    /// Forgets every line (numbering goes on).
    package func clear() {
        state.withLock { $0.removeAll() }
    }

    /// The page as served: `{"last": n, "skipped": bool, "lines": [{"seq", "time", "level", "scope", "text"}]}`.
    package static func document(_ page: Page) -> JSONValue {
        .object([
            JSONMember("last", .int(Int64(page.last))),
            JSONMember("skipped", .bool(page.skipped)),
            JSONMember("lines", .array(page.lines.map { line in
                .object([
                    JSONMember("seq", .int(Int64(line.sequence))),
                    JSONMember("time", .int(line.time)),
                    JSONMember("level", .string(line.level)),
                    JSONMember("scope", .string(line.scope)),
                    JSONMember("text", .string(line.text)),
                ])
            })),
        ])
    }

    package static let wallClockMilliseconds: @Sendable () -> Int64 = { WallClock.nowMilliseconds() }
}
