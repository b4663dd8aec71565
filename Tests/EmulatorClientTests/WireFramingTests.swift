@testable import EmulatorClient
import Testing

@Suite struct WireFramingTests {
    @Test func shortMessagesAreOneFrame() {
        #expect(WireFraming.frames(for: #"{"t":"d"}"#) == [#"{"t":"d"}"#])
        #expect(WireFraming.frames(for: String(repeating: "a", count: 16_384)).count == 1)
    }

    @Test func longMessagesAreAnnouncedAndCutBetweenScalars() {
        let message = "x" + String(repeating: "é", count: 10_000)  // 20,001 bytes
        let frames = WireFraming.frames(for: message)
        #expect(frames.first == "2")
        #expect(frames.count == 3)
        #expect(frames.dropFirst().allSatisfy { $0.utf8.count <= 16_384 })
        #expect(frames.dropFirst().joined() == message)
        var joiner = WireFrameJoiner()
        #expect(frames.compactMap { joiner.add($0) } == [message])
    }

    @Test(arguments: [
        (["1", #"{"a":1}"#], [#"{"a":1}"#]),
        (["3", "{", #""a""#, ":2}", "{}"], [#"{"a":2}"#, "{}"]),
        (["12345"], ["12345"]),  // longer than four digits: a message, not a count
        (["0", "{}"], ["{}"]),
    ])
    func joinerReadsCountsAsTheSDKsDo(frames: [String], messages: [String]) {
        var joiner = WireFrameJoiner()
        #expect(frames.compactMap { joiner.add($0) } == messages)
    }
}
