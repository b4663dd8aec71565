import EmulatorSupport
import Testing

@testable import DatabaseEmulator

/// A request the envelope decoder refuses still gets an answer when its id can be read.
@Suite struct WireMalformedRequestTests {
    typealias P = WireSessionProbe
    static let invalidJSON = #""Invalid data; couldn't parse JSON object, array, or value.""#

    /// Before: a `p` nested past the parser's 512 levels was dropped and the client waited for
    /// its ack forever.
    @Test func putNestedTooDeepIsAnsweredInvalidData() {
        let probe = WireSessionProbe(DatabaseTestClient())
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        probe.request(4, "p", #"{"p":"/a","d":\#(deep)}"#)
        probe.request(5, "p", #"{"p":"/a","d":1}"#)
        #expect(probe.take() == [P.reply(4, "invalid_data", Self.invalidJSON), P.reply(5)])
    }

    @Test(arguments: [
        (#"{"t":"d","d":{"r":12,"a":"p","b":{"d":[[[[["#, Int64?.some(12)),
        (#"{"t":"d","d":{ "r" : 3 ,"a":"m","b":{"p":"/x","d":{"r":9}}} x"#, 3),
        (#"{"t":"d","d":{"a":"r","b":{"r":9,"d":[[["#, nil),  // "r" only as a value or deeper
        (#"{"t":"d","r":8,"d":{"b":[[["#, nil),  // not inside `d`
        (#"{"t":"d","d":{"x":"\"r","r":"7"}}"#, nil),  // escaped quote; a string id is no id
        ("", nil),
        ("[[[[", nil),
    ])
    func salvagedRequestIDs(text: String, expected: Int64?) {
        #expect(DatabaseWireMessage.salvageRequestID(text) == expected)
    }

    @Test func malformedNotificationsAndGarbageStayUnanswered() {
        let probe = WireSessionProbe(DatabaseTestClient())
        probe.send(#"{"t":"d","d":{"a":"p","b":{"p":"/a","d":"#)
        probe.send("not json")
        #expect(probe.take().isEmpty)
    }
}
