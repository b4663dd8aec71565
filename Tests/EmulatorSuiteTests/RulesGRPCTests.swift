import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import EmulatorTestSupport
import Testing
@testable import EmulatorSuite

/// The rules of firebase.json's file hold on Firestore's gRPC transport too (same check as REST).
@Suite("Rules over gRPC")
struct RulesGRPCTests {
    /// One unary call with `authorization` (nil sends none); returns grpc-status and grpc-message.
    static func commit(port: Int, document: String, authorization: String?) throws -> (status: String?, message: String?) {
        var request = ProtoWriter()
        request.string(1, "projects/demo-rules/databases/(default)")
        request.message(2) { w in
            w.message(1) {
                ProtoDocument(name: "projects/demo-rules/databases/(default)/documents/\(document)", fields: ["n": .integer(1)]).write(to: &$0)
            }
        }
        var headers = [
            HeaderField(":method", "POST"), HeaderField(":scheme", "http"),
            HeaderField(":path", "/google.firestore.v1.Firestore/Commit"), HeaderField(":authority", "127.0.0.1"),
            HeaderField("content-type", "application/grpc"), HeaderField("te", "trailers"),
        ]
        if let authorization { headers.append(HeaderField("authorization", authorization)) }
        var encoder = HPACKEncoder(huffman: true)
        let block = encoder.encode(headers)
        let framed = GRPCMessageDeframer.frame(request.bytes)
        let bytes =
            HTTP2Connection.preface + HTTP2FrameEncoder.encode(.settings(ack: false, []))
            + HTTP2FrameEncoder.encode(.headers(stream: 1, block: block, endStream: false, endHeaders: true))
            + HTTP2FrameEncoder.encode(.data(stream: 1, payload: framed, endStream: true, flowControlledLength: framed.count))
        var decoder = HPACKDecoder()
        var trailers: [HeaderField] = []
        for case .headers(1, let block, true, _) in try GRPCLoopbackTests.exchange(port: port, bytes) {
            trailers = try decoder.decode(block)
        }
        return (trailers.first("grpc-status"), trailers.first("grpc-message"))
    }

    @Test func denialsNameTheRuleAndOwnerBypasses() throws {
        let run = try RulesEndToEndTests.start()
        defer { run.suite.shutdown() }
        #expect(try Self.commit(port: run.firestore, document: "once/a", authorization: nil).status == "0")
        let denied = try Self.commit(port: run.firestore, document: "once/a", authorization: nil)
        #expect(denied.status == "7")
        #expect(denied.message?.hasSuffix("false for 'update' @ L7") == true)
        #expect(try Self.commit(port: run.firestore, document: "once/a", authorization: "Bearer OWNER").status == "0")
        let ada = "Bearer " + RulesEndToEndTests.token(uid: "ada")
        #expect(try Self.commit(port: run.firestore, document: "users/ada", authorization: ada).status == "0")
        #expect(try Self.commit(port: run.firestore, document: "users/bob", authorization: ada).status == "7")
        #expect(try Self.commit(port: run.firestore, document: "users/ada", authorization: "Bearer nope").status == "3")
    }

    @Test func hotReloadedRulesHoldOverGRPC() throws {
        let run = try RulesEndToEndTests.start()
        defer { run.suite.shutdown() }
        #expect(try Self.commit(port: run.firestore, document: "open/a", authorization: nil).status == "0")
        run.directory.write("firestore.rules", RulesEndToEndTests.lockedFirestoreRules)
        #expect(try RulesEndToEndTests.eventually { try Self.commit(port: run.firestore, document: "open/a", authorization: nil).status == "7" })
    }
}
