import Testing

@testable import EmulatorSupport

@Suite struct TrimmingTests {
    @Test func trimsSpacesAndTabsAtBothEnds() {
        #expect(" \tgzip \t".trimmingSpaces == "gzip")
        #expect("a b".trimmingSpaces == "a b")
        #expect("   ".trimmingSpaces == "")
        #expect("".trimmingSpaces == "")
        #expect(Substring("  x  ").trimmingSpaces == "x")
        #expect(" héllo ".trimmingSpaces == "héllo")
    }

    @Test func keepsASpaceThatACombiningMarkJoins() {
        // " \u{301}" is one character (a space with an acute accent), not a space.
        #expect(" \u{301}x ".trimmingSpaces == " \u{301}x")
        #expect("  \u{301}x".trimmingSpaces == " \u{301}x")
        // U+0600 (an Arabic prepended mark) joins the space after it.
        #expect("x\u{600} ".trimmingSpaces == "x\u{600} ")
    }
}
