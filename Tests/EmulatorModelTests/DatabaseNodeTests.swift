import EmulatorSupport
import EmulatorTestSupport
import Testing

@testable import EmulatorModel

@Suite("Realtime Database tree")
struct DatabaseNodeTests {
    func node(_ text: String) throws -> DatabaseNode { try DatabaseNode(json: JSONReader.parse(text)) }
    func text(_ n: DatabaseNode, export: Bool = false) -> String { JSONWriter.encodeToString(n.json(export: export)) }
    func path(_ p: String) throws -> DatabasePath { try DatabasePath(parsing: p) }

    static let normalisation: [(String, String)] = [
        (#"null"#, #"null"#),
        (#"{}"#, #"null"#),
        (#"{"a":null}"#, #"null"#),
        (#"{"a":{"b":{}},"c":1}"#, #"{"c":1}"#),
        (#"{"b":1,"a":2,"10":3,"9":4}"#, #"{"9":4,"10":3,"a":2,"b":1}"#),
        (#"[1,null,3]"#, #"[1,null,3]"#),
        (#"{"0":"a","2":"c","4":"e"}"#, #"["a",null,"c",null,"e"]"#),
        (#"{"2":"c","4":"e"}"#, #"{"2":"c","4":"e"}"#),
        (#"{"0":1,"01":2}"#, #"{"0":1,"01":2}"#),
        (#"{".value":"Tom",".priority":1}"#, #""Tom""#),
        (#"{"x":1,".foo":2}"#, #"{"x":1}"#),
    ]

    @Test("writes are normalised; reads render arrays", arguments: normalisation)
    func normalise(input: String, output: String) throws {
        #expect(text(try node(input)) == output)
    }

    @Test("export format keeps priorities and never renders arrays")
    func export() throws {
        let n = try node(#"{"b":{".value":"Tom",".priority":1},"a":[true],".priority":"p"}"#)
        #expect(text(n, export: true) == #"{"a":{"0":true},"b":{".value":"Tom",".priority":1},".priority":"p"}"#)
        #expect(n.priority == .string("p"))
        #expect(n.child(".priority").leafValue == .string("p"))
    }

    @Test("set at a path creates parents, replaces leaves and prunes empty parents")
    func setAtPath() throws {
        var root = DatabaseNode.empty
        root.set(try node(#"{"name":"Ada"}"#), at: try path("/users/1"))
        root.set(.leaf(.int(5)), at: try path("/users/1/name/first"))  // leaf becomes an object
        #expect(text(root) == #"{"users":[null,{"name":{"first":5}}]}"#)  // {"1": …} reads as an array
        #expect(text(root, export: true) == #"{"users":{"1":{"name":{"first":5}}}}"#)
        root.set(.leaf(.string("hi")), at: DatabasePath(keys: ["users", "1", ".priority"]))
        #expect(root.child(at: try path("/users/1")).priority == .string("hi"))
        root.set(.empty, at: try path("/users/1/name/first"))
        #expect(root.isEmpty)
        root.set(.leaf(.int(1)), at: DatabasePath(keys: ["x", ".priority"]))  // priority on null: no-op
        #expect(root.isEmpty)
    }

    static let rejected: [String] = [
        #"{"a.b":1}"#, #"{"a":{"$x":1}}"#, #"{".value":1,"a":2}"#, #"{"a":1,".priority":true}"#, #"{".sv":"timestamp"}"#,
    ]

    @Test("invalid writes are INVALID_ARGUMENT", arguments: rejected)
    func invalid(json: String) throws {
        let parsed = try JSONReader.parse(json)
        #expect(throws: EmulatorError.self) { try DatabaseNode(json: parsed) }
    }

    @Test("depth counts the location above the write")
    func depth() throws {
        var json = JSONValue.int(1)
        for _ in 0..<3 { json = .object([JSONMember("k", json)]) }
        _ = try DatabaseNode(json: json, depth: 29)
        #expect(throws: EmulatorError.self) { try DatabaseNode(json: json, depth: 30) }
    }

    @Test("server values are resolved by the caller")
    func serverValues() throws {
        let json = try JSONReader.parse(#"{"t":{".sv":"timestamp"},"n":{"c":{".sv":{"increment":2}}}}"#)
        let n = try DatabaseNode(json: json) { sv, location throws(EmulatorError) in
            if case .object(let m) = sv, case .string("timestamp")? = m.first?.value { return .int(1234) }
            return .int(location.keys.count == 2 ? 40 : -1)
        }
        #expect(text(n) == #"{"n":{"c":40},"t":1234}"#)
    }
}

@Suite("Realtime Database node hash")
struct DatabaseNodeHashTests {
    @Test("matches the published test vectors", arguments: nodeHashVectors)
    func vectors(json: String, hash: String) throws {
        #expect(try DatabaseNode(json: JSONReader.parse(json)).hash == hash)
    }

    @Test("SHA-1 of known inputs")
    func sha1() {
        #expect(Base64.encode(SHA1.hash([])) == "2jmj7l5rSw0yVb/vlWAYkK/YBwk=")
        #expect(Base64.encode(SHA1.hash(Array("abc".utf8))) == "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=")
        let long = Array(String(repeating: "a", count: 1000).utf8)
        #expect(Base64.encode(SHA1.hash(long)) == "KR6abGaZSUm1e6XmUDYemPw2sbo=")  // Python hashlib; multi-block input
    }
}
