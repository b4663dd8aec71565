import EmulatorModel
import Testing

@testable import FirestoreEmulator

/// The byte-level reading of a plain REST path (`RESTPath.plain`) agrees with the general one it
/// skips: whatever it accepts, the general parser reads the same way; anything unusual it leaves
/// to the general parser, errors included.
@Suite struct RESTPathPlainTests {
    static let root = "/v1/projects/p/databases/(default)/documents"

    /// Paths the fast reading takes.
    static let plain: [String] = [
        root, root + "/c", root + "/c/d", root + "/c/d/e/f", root + "/c/d:x",
        "/v1/projects/demo-bench/databases/(default)/documents/lat/d25", "/v1/projects/p:q/databases/d/documents/c/d",
        root + "/c/\u{E9}t\u{E9}", root + "/c/__id5__", root + "/c/...", root + "/c/" + String(repeating: "x", count: 1500),
    ]

    /// Paths the fast reading leaves to the general one (escapes, empty segments, a custom method,
    /// invalid segments, other prefixes, names over the limit).
    static let general: [String] = [
        root + "/", root + "//c", root + "/c//d", root + "/c/%64", root + "/c%2Fd/e", root + "/c/d%", root + "/c/a%",
        root + ":runQuery", root + "/c/d:listCollectionIds", root + "/c/d:bogus", root + "/c/__x__", root + "/c/.",
        root + "/c/..", root + "/c/" + String(repeating: "x", count: 1501),
        "/v1/projects/p/databases/(default)/documents/c/" + String(repeating: "y/", count: 3500) + "z",
        "/v1/projects/p/databases/(default)", "/v1/projects//databases/d/documents", "/v1/project/p/databases/d/documents",
        "/v1/projects/p/database/d/documents", "/v1/projects/p/databases/d/document", "/v1/projects/p/databases//documents",
        "/v2/projects/p/databases/d/documents", "/v1/", "/v1", "", "/", "/v1//projects/p/databases/d/documents",
    ]

    @Test(arguments: plain + general, [false, true])
    func plainAgreesWithGeneral(_ raw: String, _ allowMethod: Bool) {
        let general = Result { () throws(EmulatorError) -> RESTPath in try RESTPath.general(raw[...], allowMethod: allowMethod) }
        let parsed = Result { () throws(EmulatorError) -> RESTPath in try RESTPath.parse(raw[...], allowMethod: allowMethod) }
        let fast = RESTPath.plain(raw[...], allowMethod: allowMethod)
        switch (general, parsed) {
        case (.success(let g), .success(let p)):
            #expect(p.database == g.database && p.path == g.path && p.method == g.method)
        case (.failure(let g), .failure(let p)):
            #expect(p.code == g.code && p.message == g.message)
            #expect(fast == nil)
        default:
            Issue.record("general \(general), parse \(parsed)")
        }
        if let fast, case .success(let g) = general {
            #expect(fast.database == g.database && fast.path == g.path && fast.method == g.method)
        }
        let colonLast = raw.split(separator: "/").last?.contains(":") == true
        if Self.plain.contains(raw), !(allowMethod && colonLast) {
            #expect(fast != nil, "the plain path \(raw) takes the fast reading")
        }
        // Without a custom method (GET, PATCH, DELETE), a `:` is part of the last id.
        if Self.general.contains(raw), allowMethod || !colonLast {
            #expect(fast == nil, "\(raw) is left to the general reading")
        }
    }
}
