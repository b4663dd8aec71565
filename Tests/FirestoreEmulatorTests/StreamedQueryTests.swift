import EmulatorHTTP
import EmulatorModel
import EmulatorProtobuf
import Synchronization
import Testing

@testable import EmulatorHTTP2
@testable import FirestoreEmulator

/// RunQuery and BatchGetDocuments over an in-process HTTP/2 connection: responses are made as
/// the client opens its windows, so a client that reads nothing holds bounded bytes, and one that
/// reads gets every document in order at one read time.
@Suite struct StreamedQueryTests {
    final class Output: UpgradedConnectionWriter {
        private let state = Mutex<[UInt8]>([])
        func write(_ bytes: [UInt8]) -> Bool { state.withLock { $0 += bytes }; return true }
        func close() {}
        var isOpen: Bool { true }
        func take() -> [UInt8] { state.withLock { s in defer { s = [] }; return s } }
    }

    /// The client side: request frames out, DATA payloads and the status in.
    struct Peer {
        var encoder = HPACKEncoder()
        var decoder = HPACKDecoder()
        var parser = HTTP2FrameParser(maxFrameSize: 1 << 24)
        var payload: [UInt8] = []
        var status: String?
        var dataBytes = 0

        mutating func call(_ stream: UInt32, _ method: String, _ body: (inout ProtoWriter) -> Void) -> [UInt8] {
            let block = encoder.encode([
                HeaderField(":method", "POST"), HeaderField(":scheme", "http"),
                HeaderField(":path", "/google.firestore.v1.Firestore/\(method)"), HeaderField(":authority", "localhost"),
                HeaderField("content-type", "application/grpc"), HeaderField("te", "trailers"),
                HeaderField("authorization", "Bearer owner"),
            ])
            var w = ProtoWriter()
            body(&w)
            let framed = GRPCMessageDeframer.frame(w.bytes)
            return HTTP2FrameEncoder.encode(.headers(stream: stream, block: block, endStream: false, endHeaders: true))
                + HTTP2FrameEncoder.encode(.data(stream: stream, payload: framed, endStream: true, flowControlledLength: framed.count))
        }

        mutating func read(_ bytes: [UInt8]) throws {
            parser.append(bytes)
            while let f = try parser.next() {
                switch f {
                case .data(_, let p, _, _):
                    payload += p
                    dataBytes += p.count
                case .headers(_, let block, _, _):
                    for h in try decoder.decode(block) where h.name == "grpc-status" { status = h.value }
                default: break
                }
            }
        }

        func messages() throws -> [[UInt8]] {
            var d = GRPCMessageDeframer()
            d.append(payload)
            var out: [[UInt8]] = []
            while let m = try d.next() { out.append(m) }
            return out
        }
    }

    static let root = "projects/demo/databases/(default)/documents"
    static func name(_ i: Int) -> String { "d" + String(String(1000 + i).dropFirst()) }

    static let documentCount = 120
    static let fieldBytes = 64 * 1024

    /// 120 documents of 64 KiB each (7.5 MiB of responses).
    static func seeded() throws -> FirestoreService {
        let service = FirestoreService(store: DocumentStore())
        let big = String(repeating: "x", count: fieldBytes)
        for start in stride(from: 0, to: documentCount, by: 40) {
            var writes: [Write] = []
            for i in start..<min(start + 40, documentCount) {
                let name = try DocumentName.document(root + "/c/" + Self.name(i))
                writes.append(Write(.update(name, fields: ["s": .string(big), "i": .integer(Int64(i))], mask: nil)))
            }
            _ = try service.commit(DatabaseID(project: "demo", database: "(default)"), writes: writes)
        }
        return service
    }

    func connect(_ service: FirestoreService) throws -> (GRPCServerConnection, Output, Peer) {
        let out = Output()
        let connection = GRPCServerConnection(router: FirestoreGRPC(service: service).router, output: out)
        connection.received(HTTP2Connection.preface + HTTP2FrameEncoder.encode(.settings(ack: false, [])))
        var peer = Peer()
        try peer.read(out.take())
        return (connection, out, peer)
    }

    /// Opens the windows until the call ends; returns the messages.
    func readAll(_ connection: GRPCServerConnection, _ out: Output, _ peer: inout Peer, stream: UInt32) throws -> [[UInt8]] {
        for _ in 0..<5000 where peer.status == nil {
            try peer.read(out.take())
            connection.received(
                HTTP2FrameEncoder.encode(.windowUpdate(stream: 0, increment: 1 << 20))
                    + HTTP2FrameEncoder.encode(.windowUpdate(stream: stream, increment: 1 << 20)))
        }
        try peer.read(out.take())
        return try peer.messages()
    }


    @Test func aQueryForAClientThatDoesNotReadHoldsBoundedBytes() throws {
        let (connection, out, peer0) = try connect(try Self.seeded())
        var peer = peer0
        connection.received(peer.call(1, "RunQuery") { w in
            w.string(1, Self.root)
            w.message(2) { $0.message(2) { $0.string(2, "c") } }
        })
        let first = out.take()
        let written = first.count
        let held = connection.state.withLock { $0.connection.queuedBytes }
        let whole = Self.documentCount * Self.fieldBytes
        // Before: the whole 7.5 MiB response was encoded and queued at once.
        #expect(written + held < 1 << 20, "\(written + held) of \(whole) bytes held for a client that reads nothing")

        try peer.read(first)
        let messages = try readAll(connection, out, &peer, stream: 1)
        #expect(peer.status == "0")
        #expect(messages.count == Self.documentCount)
        var names: [String] = []
        var times = Set<Int64>()
        for m in messages {
            let fields = try GRPCTestClient.fields(m)
            let doc = try ProtoDocument(ProtoReader(fields.first { $0.0 == 1 }?.1 ?? []))
            names.append(doc.name)
            times.insert(try ProtoValue.readMicroseconds(ProtoReader(fields.first { $0.0 == 3 }?.1 ?? [])))
        }
        #expect(names == (0..<Self.documentCount).map { Self.root + "/c/" + Self.name($0) })
        #expect(times.count == 1)
    }

    @Test func batchGetIsPacedToo() throws {
        let (connection, out, peer0) = try connect(try Self.seeded())
        var peer = peer0
        connection.received(peer.call(1, "BatchGetDocuments") { w in
            w.string(1, "projects/demo/databases/(default)")
            for i in 0..<Self.documentCount { w.string(2, Self.root + "/c/" + Self.name(i)) }
            w.string(2, Self.root + "/c/missing")
        })
        let first = out.take()
        #expect(first.count + connection.state.withLock { $0.connection.queuedBytes } < 1 << 20)
        try peer.read(first)
        let messages = try readAll(connection, out, &peer, stream: 1)
        #expect(peer.status == "0")
        #expect(messages.count == Self.documentCount + 1)
        #expect(try GRPCTestClient.fields(messages.last ?? []).first?.0 == 2)  // missing
    }

    @Test func anEmptyResultAnswersOnceWithTheReadTime() throws {
        let (connection, out, peer0) = try connect(FirestoreService(store: DocumentStore()))
        var peer = peer0
        connection.received(peer.call(1, "RunQuery") { w in
            w.string(1, Self.root)
            w.message(2) { $0.message(2) { $0.string(2, "none") } }
        })
        let messages = try readAll(connection, out, &peer, stream: 1)
        #expect(peer.status == "0")
        #expect(messages.count == 1)
        #expect(try GRPCTestClient.fields(messages[0]).map(\.0) == [3])
    }
}
