import EmulatorHTTP
import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf
import EmulatorStorage
import Testing
@testable import FirestoreEmulator

/// listCollectionIds under security rules: no rule can grant it, so only the owner may call it
/// while rules are in force; without rules anyone may.
@Suite struct RulesListCollectionIDsTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /{document=**} { allow read, write: if true; }
          }
        }
        """
    static let token = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZGEifQ."  // {"alg":"none"} {"sub":"ada"}

    static func client(rules: Bool) -> FirestoreTestClient {
        let c = FirestoreTestClient(rules: rules ? RulesCallerTests.gate(Self.rules) : .allowAll)
        _ = c.send(.patch, "/v1/\(c.name("a/1/b/2"))", #"{"fields":{}}"#, headers: [("Authorization", "Bearer owner")])
        return c
    }

    @Test(arguments: [
        (nil, 403), ("Bearer \(token)", 403), ("Bearer owner", 200), ("bearer OWNER", 200),
    ] as [(String?, Int)])
    func restNeedsTheOwnerWhileRulesAreInForce(_ authorization: String?, _ status: Int) {
        let c = Self.client(rules: true)
        let headers = authorization.map { [("Authorization", $0)] } ?? []
        for parent in [c.root, c.name("a/1")] {
            let response = c.send(.post, "/v1/\(parent):listCollectionIds", "{}", headers: headers)
            #expect(response.status == status)
            if status == 403 { #expect(response.json.errorStatus == "PERMISSION_DENIED") }
        }
        if status == 200 {
            #expect(c.send(.post, "/v1/\(c.root):listCollectionIds", "{}", headers: headers).text.contains(#""a""#))
        }
    }

    @Test func restIsOpenWithoutRules() {
        let c = Self.client(rules: false)
        let response = c.send(.post, "/v1/\(c.name("a/1")):listCollectionIds", "{}")
        #expect(response.status == 200)
        #expect(response.text.contains(#""b""#))
    }

    static func grpc(rules: Bool, authorization: String?) throws -> Result<[UInt8], GRPCStatus> {
        let gate = rules ? RulesCallerTests.gate(Self.rules) : .allowAll
        let service = FirestoreService(store: DocumentStore(engine: StorageEngine()), rules: gate)
        let name = try DocumentName.document("projects/demo/databases/(default)/documents/a/1")
        _ = try service.commit(DatabaseID(project: "demo", database: "(default)"), writes: [Write(.update(name, fields: ValueMap(), mask: nil))])
        let router = FirestoreGRPC(service: service).router
        guard case .unaryLater(let handler)? = router.method(for: "/google.firestore.v1.Firestore/ListCollectionIds") else {
            return .failure(GRPCStatus(12))
        }
        var w = ProtoWriter()
        w.string(1, "projects/demo/databases/(default)/documents")
        let metadata = authorization.map { [HeaderField("authorization", $0)] } ?? []
        let writer = CollectingWriter()
        handler(GRPCCallContext(path: "", metadata: metadata), w.bytes, writer)
        writer.wait()
        guard let status = writer.status, status.code == 0 else { return .failure(writer.status ?? GRPCStatus(2)) }
        return .success(writer.messages.first ?? [])
    }

    @Test(arguments: [
        (true, nil, 7), (true, "Bearer \(token)", 7), (true, "Bearer owner", 0), (false, nil, 0),
    ] as [(Bool, String?, Int32)])
    func grpcFollowsTheSameRule(_ rules: Bool, _ authorization: String?, _ code: Int32) throws {
        switch try Self.grpc(rules: rules, authorization: authorization) {
        case .success(let bytes):
            #expect(code == 0)
            #expect(bytes.count > 2)  // collection_ids: ["a"]
        case .failure(let status):
            #expect(status.code == code)
        }
    }
}
