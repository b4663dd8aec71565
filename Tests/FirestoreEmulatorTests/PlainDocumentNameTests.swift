import EmulatorModel
import Testing

@testable import FirestoreEmulator

/// gRPC's document name read from its bytes agrees with the general parse wherever it gives a
/// name, gives one for the names clients send, and leaves every other name to the general parse.
@Suite struct PlainDocumentNameTests {
    static let root = "projects/demo-bench/databases/(default)/documents"

    /// Names the plain reading takes.
    static let plain = [
        "\(root)/lat/d1", "\(root)/a/b/c/d", "\(root)/users/ada-lovelace_1815", "\(root)/a/...",
        "\(root)/a/_x", "\(root)/a/x__", "projects/p/databases/d/documents/c/\(String(repeating: "x", count: 1500))",
    ]

    /// Names it leaves to the general parse: valid ones outside its form, and every kind of error.
    static let general = [
        "\(root)/a/__id7__", "\(root)/a/__x", "\(root)/a/__x__", "\(root)/é/d", "\(root)/a/b c", "\(root)/a/b\u{7F}",
        "\(root)/a", "\(root)", "\(root)/", "\(root)/a/", "\(root)//a/b", "\(root)/a/.", "\(root)/a/..", "/\(root)/a/b",
        "projects//databases/d/documents/a/b", "projects/p/databases//documents/a/b", "project/p/databases/d/documents/a/b",
        "projects/p/database/d/documents/a/b", "projects/p/databases/d/document/a/b", "projects/p/databases/d",
        "projects/p/databases/d/documents/c/\(String(repeating: "x", count: 1501))",
        "projects/p/databases/d/documents/c/" + Array(repeating: String(repeating: "y", count: 1000), count: 7).joined(separator: "/c/"),
        "", "/", "projects",
    ]

    @Test(arguments: plain)
    func thePlainReadingIsTheGeneralParse(_ name: String) throws {
        let read = try #require(DocumentName.plainDocument(name))
        #expect(read == (try DocumentName.document(name)))
    }

    @Test(arguments: general)
    func otherNamesAreLeftToTheGeneralParse(_ name: String) {
        #expect(DocumentName.plainDocument(name) == nil)
    }

    /// Every name made from a handful of pieces: wherever the plain reading gives a name, the
    /// general parse gives the same one.
    @Test func agreesOnEveryCombination() {
        let pieces = ["projects", "p", "databases", "(default)", "documents", "c", "d", "", ".", "..", "__x__", "__id1__", "é", "a b"]
        var taken = 0
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for name in ["projects/p/databases/d/documents/\(a)/\(b)", "\(a)/p/\(b)/d/\(c)/c/d", "projects/\(a)/databases/\(b)/documents/\(c)/d"] {
                        guard let read = DocumentName.plainDocument(name) else { continue }
                        taken += 1
                        #expect(read == (try? DocumentName.document(name)), "\(name)")
                    }
                }
            }
        }
        #expect(taken > 100)
    }
}
