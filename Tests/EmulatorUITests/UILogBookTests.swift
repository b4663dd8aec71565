import Testing
@testable import EmulatorUI

@Suite("UI log book")
struct UILogBookTests {
    @Test func keepsTheMostRecentLinesInOrder() {
        let book = UILogBook(capacity: 3, clock: { 42 })
        for n in 1...5 { book.append(level: "info", scope: "hub", text: "line \(n)") }
        let page = book.lines(after: 0)
        #expect(page.lines.map(\.text) == ["line 3", "line 4", "line 5"])
        #expect(page.lines.map(\.sequence) == [3, 4, 5])
        #expect(page.last == 5)
        #expect(page.skipped)
        #expect(page.lines.first?.time == 42)
    }

    @Test func aReaderThatKeptUpSkipsNothing() {
        let book = UILogBook(capacity: 3)
        for n in 1...4 { book.append(level: "info", scope: "", text: "\(n)") }
        let page = book.lines(after: 3)
        #expect(page.lines.map(\.text) == ["4"])
        #expect(!page.skipped)
        #expect(book.lines(after: 4).lines.isEmpty)
        #expect(!book.lines(after: 4).skipped)
    }

    @Test func clearingKeepsTheNumbering() {
        let book = UILogBook(capacity: 10)
        book.append(level: "info", scope: "", text: "a")
        book.clear()
        #expect(book.lines(after: 0).lines.isEmpty)
        book.append(level: "error", scope: "", text: "b")
        #expect(book.lines(after: 0).lines.map(\.sequence) == [2])
    }

    @Test func longLinesAreCut() {
        let book = UILogBook(capacity: 1)
        book.append(level: "info", scope: "", text: String(repeating: "x", count: 100_000))
        let text = book.lines(after: 0).lines.first?.text ?? ""
        #expect(text.count == UILogBook.maximumTextLength + 1)
    }

    @Test func limitCapsAPage() {
        let book = UILogBook(capacity: 100)
        for n in 1...50 { book.append(level: "info", scope: "", text: "\(n)") }
        #expect(book.lines(after: 0, limit: 10).lines.count == 10)
    }
}
