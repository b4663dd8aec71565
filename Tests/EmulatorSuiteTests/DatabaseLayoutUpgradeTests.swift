import EmulatorSnapshot
import EmulatorStorage
import EmulatorSupport
import EmulatorTestSupport
import Testing

@testable import EmulatorSuite

/// A `--data-dir` written before the Realtime Database packed small objects into one entry (one
/// engine entry per leaf) still loads: reads, writes into it, exports and a restart all see the
/// same data.
@Suite(.serialized) struct DatabaseLayoutUpgradeTests {
    static let namespace: NamespaceID = "database/demo-live"

    /// The entries that layout stored for
    /// `{"score":1.5,"users":{"ada":{".priority":2,"age":36,"name":"Ada"},"bob":{"name":"Bob","tags":{"x":true}}}}`:
    /// a tag byte then the value (`s` UTF-8, `i` 8 bytes big-endian, `d` IEEE-754 bits big-endian,
    /// `b` 0/1), a priority at `<node>/.priority`.
    static let perLeafEntries: [(String, [UInt8])] = [
        ("score", [0x64, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0]),
        ("users/ada/.priority", [0x69, 0, 0, 0, 0, 0, 0, 0, 2]),
        ("users/ada/age", [0x69, 0, 0, 0, 0, 0, 0, 0, 36]),
        ("users/ada/name", [0x73] + Array("Ada".utf8)),
        ("users/bob/name", [0x73] + Array("Bob".utf8)),
        ("users/bob/tags/x", [0x62, 1]),
    ]

    private func configuration(_ directory: TemporaryDirectory) -> SuiteConfiguration {
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-live", kinds: [.database])
        configuration.dataDirectory = directory.path + "/live"
        return configuration
    }

    private func send(_ port: Int, _ method: String, _ path: String, _ body: String = "") throws -> LoopbackHTTPClient.Reply {
        try LoopbackHTTPClient.send(.init(method: method, host: "127.0.0.1", port: port, path: path, body: Array(body.utf8)))
    }

    @Test func aDataDirectoryStoredOneEntryPerLeafStillLoads() throws {
        let directory = TemporaryDirectory()
        do {
            let engine = StorageEngine()
            let data = try DataDirectory.open(directory.path + "/live", engine: engine)
            try engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                for (key, value) in Self.perLeafEntries { _ = try txn.put(Self.namespace, StorageKey(key), value) }
            }
            data.close()
        }
        let everything = #"{"score":1.5,"users":{"ada":{"age":36,"name":"Ada",".priority":2},"bob":{"name":"Bob","tags":{"x":true}}}}"#
        do {
            let suite = try Suite.start(configuration(directory))
            defer { suite.shutdown() }
            let port = try #require(suite.port(of: .database))
            #expect(try send(port, "GET", "/.json?ns=demo-live&format=export").text == everything)
            #expect(try send(port, "GET", "/users/bob/tags/x.json?ns=demo-live").text == "true")
            // Writes into data stored the old way, stored the new way.
            #expect(try send(port, "PATCH", "/users/bob.json?ns=demo-live", #"{"age":7}"#).status == 200)
            #expect(try send(port, "PUT", "/users/ada/name.json?ns=demo-live", #""Lovelace""#).status == 200)
            #expect(try send(port, "PUT", "/users/cy.json?ns=demo-live", #"{"name":"Cy","age":3}"#).status == 200)
            #expect(try send(port, "GET", "/users.json?ns=demo-live&format=export").text
                == #"{"ada":{"age":36,"name":"Lovelace",".priority":2},"bob":{"age":7,"name":"Bob","tags":{"x":true}},"cy":{"age":3,"name":"Cy"}}"#)
        }
        let suite = try Suite.start(configuration(directory))
        defer { suite.shutdown() }
        let port = try #require(suite.port(of: .database))
        #expect(try send(port, "GET", "/users.json?ns=demo-live&format=export").text
            == #"{"ada":{"age":36,"name":"Lovelace",".priority":2},"bob":{"age":7,"name":"Bob","tags":{"x":true}},"cy":{"age":3,"name":"Cy"}}"#)
        #expect(try send(port, "GET", "/users/cy/name.json?ns=demo-live").text == #""Cy""#)
        #expect(try send(port, "GET", "/score.json?ns=demo-live").text == "1.5")
    }
}
