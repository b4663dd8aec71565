@testable import EmulatorClient
import EmulatorHTTP2
@testable import EmulatorPosix
import EmulatorTesting
import Foundation
import Glibc
import Synchronization
import Testing

/// The keepalive of a streaming gRPC call: a peer that answers nothing ends the call, so a
/// listener reconnects; a quiet call to a live peer stays open however long nothing changes.
@Suite(.serialized) struct GRPCKeepaliveTests {
    /// A loopback port whose connections complete in the kernel's backlog and are never served.
    private final class SilentPort {
        let fd: Int32
        let port: Int

        init() throws {
            (fd, port) = try ListeningSocket.open(host: "127.0.0.1", port: 0, backlog: 4)
        }

        deinit { close(fd) }

        /// Everything the first connection sent, up to its close (the accepted socket blocks).
        func receivedBytes() -> [UInt8] {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return [] }
            defer { close(connection) }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                if n <= 0 { return bytes }
                bytes += buffer[0..<n]
            }
        }
    }

    @Test func aPeerThatAnswersNothingEndsTheCallAfterTwoIntervals() throws {
        let peer = try SilentPort()
        let started = ContinuousClock.now
        do {
            let call = try GRPCStreamConnection(
                host: "127.0.0.1", port: peer.port, path: "/google.firestore.v1.Firestore/Listen", metadata: [],
                keepaliveMilliseconds: 100)
            let error = #expect(throws: ClientTransportError.self) { _ = try call.next() }
            #expect(error?.description.contains("keepalive") == true)
            #expect(call.keepalivesSent == 1)
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        // What reached the peer: the preface, SETTINGS, the call's HEADERS, then one PING.
        let bytes = peer.receivedBytes()
        try #require(bytes.starts(with: HTTP2Connection.preface))
        var parser = HTTP2FrameParser(maxFrameSize: 1 << 14)
        parser.append(Array(bytes.dropFirst(HTTP2Connection.preface.count)))
        var pings: [[UInt8]] = []
        while let frame = try parser.next() {
            if case .ping(false, let opaque) = frame { pings.append(opaque) }
        }
        #expect(pings.count == 1)
        #expect(pings.first?.count == 8)
    }

    @Test func aQuietListenToALiveSuiteOutlastsManyIntervals() async throws {
        try await withEmulators(services: .firestore) { env in
            let db = env.firestore()
            let address = db.address
            let request = ListenTargetSpec.document(db.document("quiet/doc")).addRequest(targetID: 1)
            let metadata = [("authorization", db.authorizationHeader), ("google-cloud-resource-prefix", db.databaseName)]
            let messages = Mutex(0)
            let failure = Mutex<String?>(nil)
            let pings = Mutex(0)
            let interrupter = Mutex<Interrupter?>(nil)
            let reader = Thread {
                do {
                    let call = try GRPCStreamConnection(
                        host: address.host, port: address.port, path: "/google.firestore.v1.Firestore/Listen",
                        metadata: metadata, keepaliveMilliseconds: 500)
                    interrupter.withLock { $0 = call.interrupter }
                    try call.send(request)
                    while true {
                        let event = try call.next()
                        pings.withLock { $0 = call.keepalivesSent }
                        guard case .message = event else {
                            failure.withLock { $0 = "the call ended: \(event)" }
                            return
                        }
                        messages.withLock { $0 += 1 }
                    }
                } catch {
                    failure.withLock { $0 = "\(error)" }
                }
            }
            reader.start()
            defer { interrupter.withLock { $0?.interrupt() } }
            // The first snapshot (target added, current, consistent), then three seconds of silence.
            // (Half a second per interval: the suite's PING ACK must beat it on a loaded CI machine.)
            try await waitUntil { messages.withLock { $0 >= 3 } || failure.withLock { $0 != nil } }
            try await Task.sleep(for: .seconds(3))
            let before = messages.withLock { $0 }
            try await db.document("quiet/doc").setData(["n": 1])
            try await waitUntil(state: "failure: \(failure.withLock { $0 } ?? "none")") {
                messages.withLock { $0 > before } || failure.withLock { $0 != nil }
            }
            #expect(failure.withLock { $0 } == nil)
            #expect(messages.withLock { $0 } > before)
            // About six intervals passed in silence, each answered by the suite's PING ACK.
            #expect(pings.withLock { $0 } >= 4)
        }
    }
}
