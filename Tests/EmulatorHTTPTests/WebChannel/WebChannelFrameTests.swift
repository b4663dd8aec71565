import EmulatorHTTP
import Testing

@Suite("WebChannel chunk framing")
struct WebChannelFrameTests {
    /// JSON text → the length prefix a browser computes (`String.length`: UTF-16 code units).
    static let lengths: [(json: String, units: Int, bytes: Int)] = [
        ("[]", 2, 2),
        (#"[[1,["noop"]]]"#, 14, 14),
        (#"["é"]"#, 5, 6),  // 2-byte UTF-8, one unit
        (#"["€"]"#, 5, 7),  // 3-byte UTF-8, one unit
        (#"["😀"]"#, 6, 8),  // 4-byte UTF-8, a surrogate pair: two units
        (#"["a😀b€c𝄞"]"#, 12, 18),
        ("\"\u{10FFFF}\"", 4, 6),
        (#"["\ud83d\ude00"]"#, 16, 16),  // escaped in JSON: plain ASCII
    ]

    @Test("the length counts UTF-16 code units", arguments: lengths)
    func length(_ item: (json: String, units: Int, bytes: Int)) throws {
        let json = Array(item.json.utf8)
        #expect(json.count == item.bytes)
        #expect(WebChannelFrame.utf16Length(json) == item.units)
        #expect(item.json.utf16.count == item.units)
        let framed = WebChannelFrame.frame(json)
        #expect(framed == Array("\(item.units)\n".utf8) + json)
        #expect(WebChannelFrame.split(framed) == [json])
    }

    @Test("numbered messages and several frames in one body")
    func messages() throws {
        let body = WebChannelFrame.messages([(id: 1, payload: Array(#"{"a":"😀"}"#.utf8)), (id: 2, payload: Array(#""noop""#.utf8))])
        #expect(String(decoding: body, as: UTF8.self) == #"[[1,[{"a":"😀"}]],[2,["noop"]]]"#)
        let two = WebChannelFrame.frame(body) + WebChannelFrame.frame(Array("[0]".utf8))
        #expect(String(decoding: two, as: UTF8.self) == "31\n[[1,[{\"a\":\"😀\"}]],[2,[\"noop\"]]]3\n[0]")
        #expect(WebChannelFrame.split(two) == [body, Array("[0]".utf8)])
    }

    @Test("bodies that are not frames", arguments: ["x\n[]", "2[]", "3\n[]", "3\n[\"😀\"]", "1\n\u{1F600}", "\n[]"])
    func notFrames(_ body: String) {
        #expect(WebChannelFrame.split(Array(body.utf8)) == nil)
    }
}
