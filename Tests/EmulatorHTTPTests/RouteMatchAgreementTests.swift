import Testing

@testable import EmulatorHTTP

/// A router matches a path's bytes against each pattern's bytes in place; that must agree with
/// matching the path's segments as substrings, on every pattern and path below.
@Suite struct RouteMatchAgreementTests {
    static let patterns = [
        "/v1/*", "/emulator/v1/*", "/", "/*", "/a", "/a/:x", "/a/:x/:y", "/a/b/*", "/:x", "/caf\u{E9}", "/a/*/b", "//a//b//",
    ]
    static let paths = [
        "", "/", "//", "/v1", "/v1/", "/v1/projects/p/databases/(default)/documents/lat/d25", "/v1x/a", "/v2/a",
        "/emulator/v1/projects/p:reset", "/emulator/v1", "/a", "/a/", "//a", "/a//", "/a/b", "/a//b", "/a/b/",
        "/a/b/c", "/a/b/c/d", "/b", "/ab", "/A", "/caf\u{E9}", "/cafe\u{301}", "/a/*/b", "/a/x/b", "a", "a/b",
        "/%61", "/a/b%2F", "/\u{0}", "/a/\u{FF}",
    ]

    @Test(arguments: patterns)
    func bytesAgreeWithSubstrings(_ pattern: String) {
        let segments = Router.segments(pattern[...])
        let bytes = segments.map { Array($0.utf8) }
        for path in Self.paths {
            let bySubstrings = Router.matches(segments, path[...])
            let byBytes = Array(path.utf8).withUnsafeBufferPointer { Router.matches(bytes, $0) }
            #expect(byBytes == bySubstrings, "\(pattern) against \(path.debugDescription)")
        }
    }
}
