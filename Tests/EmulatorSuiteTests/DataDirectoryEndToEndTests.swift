#if canImport(Glibc)
import EmulatorSupport
import EmulatorTestSupport
import Glibc
#endif
import Testing

@testable import EmulatorSuite

/// `--data-dir` over real sockets: writes through the HTTP transports are acknowledged after
/// their journal record is on disk, without holding up the event loop.
@Suite(.serialized) struct DataDirectoryEndToEndTests {
    private func configuration(_ directory: TemporaryDirectory, fsync: Bool = true) -> SuiteConfiguration {
        var configuration = SuiteConfiguration.ephemeral(projectId: "demo-live", kinds: [.database, .firestore])
        configuration.dataDirectory = directory.path + "/live"
        configuration.dataDirectoryFsync = fsync
        return configuration
    }

    private func send(_ port: Int, _ method: String, _ path: String, _ body: String = "") throws -> LoopbackHTTPClient.Reply {
        try LoopbackHTTPClient.send(.init(method: method, host: "127.0.0.1", port: port, path: path, body: Array(body.utf8)))
    }

    @Test(arguments: [true, false])
    func restWritesAreOnDiskWhenAcknowledged(fsync: Bool) throws {
        let directory = TemporaryDirectory()
        let suite = try Suite.start(configuration(directory, fsync: fsync))
        defer { suite.shutdown() }
        let database = try #require(suite.port(of: .database))
        let firestore = try #require(suite.port(of: .firestore))

        let put = try send(database, "PUT", "/rooms/a.json?ns=demo-live", #"{"name":"acked-rtdb-value"}"#)
        #expect(put.status == 200)
        #expect(directory.journalBytes().contains(text: "acked-rtdb-value"))

        let patch = try send(
            firestore, "PATCH", "/v1/projects/demo-live/databases/(default)/documents/c/d",
            #"{"fields":{"s":{"stringValue":"acked-firestore-value"}}}"#)
        #expect(patch.status == 200)
        #expect(directory.journalBytes().contains(text: "acked-firestore-value"))

        // Reads that commit nothing are answered as usual.
        #expect(try send(database, "GET", "/rooms/a/name.json?ns=demo-live").text == #""acked-rtdb-value""#)
    }

    @Test func pipelinedWritesAndReadsAreAnsweredInOrder() throws {
        let directory = TemporaryDirectory()
        let suite = try Suite.start(configuration(directory))
        defer { suite.shutdown() }
        let port = try #require(suite.port(of: .database))
        var requests = ""
        for i in 0..<5 {
            let body = #"{"n":\#(i)}"#
            requests += "PUT /seq.json?ns=demo-live HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            requests += "GET /seq/n.json?ns=demo-live HTTP/1.1\r\nHost: x\r\n\r\n"
        }
        requests += "GET /seq/n.json?ns=demo-live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let text = try pipelined(port, requests)
        // Each GET sees the PUT just before it: nothing overtook a deferred acknowledgement.
        let bodies = text.split(separator: "\r\n\r\n").dropFirst().map { String($0.prefix { $0 != "H" }) }
        #expect(bodies == [#"{"n":0}"#, "0", #"{"n":1}"#, "1", #"{"n":2}"#, "2", #"{"n":3}"#, "3", #"{"n":4}"#, "4", "4"])
    }

    /// A snapshot whose Firestore part is good and whose RTDB file holds an invalid key is refused
    /// before anything loads: the error names the file and the key path, the data directory is
    /// left without data, and the corrected snapshot imports on the next start.
    @Test func badDatabaseFileRefusesTheWholeImportNamingTheFile() throws {
        let directory = TemporaryDirectory()
        let hooks = SnapshotHooks.live(version: "test")
        let snapshot = directory.path + "/snapshot"
        do {
            let suite = try Suite.start(.ephemeral(projectId: "demo-live", kinds: [.database, .firestore]), hooks: hooks)
            defer { suite.shutdown() }
            let firestore = try #require(suite.port(of: .firestore))
            let patch = try send(
                firestore, "PATCH", "/v1/projects/demo-live/databases/(default)/documents/books/dune",
                #"{"fields":{"title":{"stringValue":"Dune"}}}"#)
            #expect(patch.status == 200)
            try hooks.exportData(ExportRequest(path: snapshot, initiatedBy: "test", targets: [.database, .firestore]), suite.context)
        }
        let file = snapshot + "/database_export/demo-live-default-rtdb.json"
        #expect(LocalFiles.write(Array(#"{"users":{"ada":{"a.b":1}}}"#.utf8), to: file))

        var withImport = configuration(directory)
        withImport.importPlan = try #require(
            DataDirectories.resolve(importDirectory: snapshot, exportOnExit: nil, workingDirectory: directory.path).importPlan)
        #expect {
            _ = try Suite.start(withImport, hooks: hooks)
        } throws: { error in
            let message = (error as? SuiteStartError)?.message ?? ""
            return message.contains("\(file): at /users/ada/a.b: Invalid data; key \"a.b\" can't be empty or contain $ # [ ] / or .")
        }

        // Nothing was journaled: the data directory restores nothing.
        do {
            let output = CapturedOutput()
            let suite = try Suite.start(configuration(directory), hooks: hooks, console: output.console(verbosity: .info))
            defer { suite.shutdown() }
            #expect(output.standardOutput.contains("restored 0 entries and 0 journaled commits"))
            let firestore = try #require(suite.port(of: .firestore))
            #expect(try send(firestore, "GET", "/v1/projects/demo-live/databases/(default)/documents/books/dune").status == 404)
        }

        #expect(LocalFiles.write(Array(#"{"users":{"ada":{"ab":1}}}"#.utf8), to: file))
        let suite = try Suite.start(withImport, hooks: hooks)
        defer { suite.shutdown() }
        let firestore = try #require(suite.port(of: .firestore))
        let database = try #require(suite.port(of: .database))
        #expect(try send(firestore, "GET", "/v1/projects/demo-live/databases/(default)/documents/books/dune").text.contains("Dune"))
        #expect(try send(database, "GET", "/users/ada/ab.json?ns=demo-live-default-rtdb").text == "1")
    }

    @Test func acknowledgedWritesSurviveARestart() throws {
        let directory = TemporaryDirectory()
        do {
            let suite = try Suite.start(configuration(directory))
            defer { suite.shutdown() }
            let port = try #require(suite.port(of: .database))
            for i in 0..<20 {
                #expect(try send(port, "PUT", "/items/\(i).json?ns=demo-live", "\(i)").status == 200)
            }
        }
        let suite = try Suite.start(configuration(directory))
        defer { suite.shutdown() }
        let port = try #require(suite.port(of: .database))
        #expect(try send(port, "GET", "/items/19.json?ns=demo-live").text == "19")
    }

    /// Sends `requests` in one write and reads until the server closes.
    private func pipelined(_ port: Int, _ requests: String) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let bytes = Array(requests.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        try #require(sent == bytes.count)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 5000) == 1 else { break }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: received, as: UTF8.self)
    }
}
