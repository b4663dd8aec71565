import EmulatorHTTP
import EmulatorTestSupport
import Glibc
import Synchronization
import Testing

@testable import EmulatorPosix

/// Two loops whatever the machine's core count, so streams always land on both.
private let twoLoops: EventLoopGroup? = try? EventLoopGroup(loopCount: 2)

/// `HTTPStreamFanOut` from a loop thread over streams spread across both loops of a group.
@Suite(.serialized) struct FanOutTests {
    /// What the handler saw while fanning out.
    private struct Seen {
        var local = 0
        var remote = 0
        var refused: [[Int]] = []
    }

    /// Opens `count` streams on a two-loop server, then POSTs `/fire`, which fans out `events`
    /// numbered events to every stream; `/fire` finishes stream `closing` after event `closeAfter`.
    private func fanOut(
        streams count: Int, events: Int, closing: Int, closeAfter: Int
    ) throws -> (clients: [RawClient], seen: Seen) {
        let group = try #require(twoLoops)
        // Writers by the client's number (`?id=`): streams start on two loops in no set order.
        let writers = Watched<[Int: any HTTPStreamWriter]>([:])
        let seen = Mutex(Seen())
        var router = Router()
        router.add(.get, "/events") { request in
            let id = request.query("id").flatMap { Int($0) } ?? -1
            return HTTPResponse(headers: ServerSentEvent.responseHeaders, stream: HTTPStreamBody { writer in
                writers.update { $0[id] = writer }
            })
        }
        router.add(.post, "/fire") { _ in
            let all = writers.update { writers in writers.keys.sorted().compactMap { writers[$0] } }
            seen.withLock { seen in
                seen.local = all.count { $0.sendsOnCallingThread }
                seen.remote = all.count { !$0.sendsOnCallingThread }
            }
            for n in 0..<events {
                let event = ServerSentEvent(event: "put", data: "{\"n\":\(n)}").bytes
                let refused = HTTPStreamFanOut.write(event, count: all.count) { all[$0] }
                seen.withLock { $0.refused.append(refused) }
                if n == closeAfter { all[closing].finish() }
            }
            return .text("fired")
        }
        var clients: [RawClient] = []
        try HTTPServer.withServer(
            ServerConfiguration(host: "127.0.0.1", port: 0), group: group, handler: router.respond(to:),
            gracePeriod: .milliseconds(200)
        ) { server in
            for id in 0..<count {
                let client = try #require(RawClient(port: server.port))
                client.send("GET /events?id=\(id) HTTP/1.1\r\n\r\n")
                #expect(client.readUntil("\r\n\r\n"))
                clients.append(client)
            }
            writers.wait(seconds: 5) { $0.count >= count }
            let trigger = try #require(RawClient(port: server.port))
            trigger.send("POST /fire HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            #expect(trigger.response()?.body == "fired")
            for (index, client) in clients.enumerated() {
                let last = index == closing ? "0\r\n\r\n" : "{\"n\":\(events - 1)}"
                #expect(client.readUntil(last))
            }
        }
        return (clients, seen.withLock { $0 })
    }

    /// The `n` values of the events in a chunked SSE body, in arrival order.
    private func eventNumbers(_ text: String) -> [Int] {
        // Split on the byte: "\r\n" (chunk framing) is one Character in a String.
        text.utf8.split(separator: UInt8(ascii: "\n")).compactMap { bytes in
            let line = String(decoding: bytes, as: UTF8.self)
            guard line.hasPrefix("data: {\"n\":") else { return nil }
            return Int(line.dropFirst(11).prefix { $0.isNumber })
        }
    }

    @Test func everyStreamOnBothLoopsGetsEveryEventOnceInOrder() throws {
        let (clients, seen) = try fanOut(streams: 40, events: 30, closing: 7, closeAfter: 12)
        // The handler's loop sends half itself and hands the other half to the other loop.
        #expect(seen.local > 0 && seen.remote > 0)
        #expect(seen.local + seen.remote == 40)
        for (index, client) in clients.enumerated() {
            let expected = index == 7 ? Array(0...12) : Array(0..<30)
            #expect(eventNumbers(client.text) == expected, "stream \(index)")
        }
    }

    @Test func aStreamFinishedMidFanOutIsRefusedFromTheNextEventOn() throws {
        let (clients, seen) = try fanOut(streams: 10, events: 6, closing: 3, closeAfter: 2)
        #expect(seen.refused == [[], [], [], [3], [3], [3]])
        // Its body ended with the last chunk after event 2; the connection stays usable.
        #expect(clients[3].text.hasSuffix("{\"n\":2}\n\n\r\n0\r\n\r\n"))
    }

    @Test func aPeerThatLeftMidFanOutDoesNotDisturbTheOthers() throws {
        let group = try #require(twoLoops)
        let writers = Watched<[any HTTPStreamWriter]>([])
        var router = Router()
        router.add(.get, "/events") { _ in
            HTTPResponse(stream: HTTPStreamBody { writer in writers.update { $0.append(writer) } })
        }
        router.add(.post, "/fire") { _ in
            let all = writers.current
            for n in 0..<200 {
                _ = HTTPStreamFanOut.write(Array("data: \(n)\n\n".utf8), count: all.count) { all[$0] }
            }
            return .text("fired")
        }
        try HTTPServer.withServer(
            ServerConfiguration(host: "127.0.0.1", port: 0), group: group, handler: router.respond(to:),
            gracePeriod: .milliseconds(200)
        ) { server in
            var clients: [RawClient?] = []
            for _ in 0..<8 {
                let client = try #require(RawClient(port: server.port))
                client.send("GET /events HTTP/1.1\r\n\r\n")
                #expect(client.readUntil("\r\n\r\n"))
                clients.append(client)
            }
            writers.wait(seconds: 5) { $0.count >= 8 }
            // Two peers (one per loop, by accept order) leave before the fan-out; their writes
            // fail or are dropped while the others are sent to.
            clients[2] = nil
            clients[5] = nil
            let trigger = try #require(RawClient(port: server.port))
            trigger.send("POST /fire HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            #expect(trigger.response()?.body == "fired")
            for case let client? in clients {
                #expect(client.readUntil("data: 199\n\n"))
                // Split on the byte: "\r\n" (chunk framing) is one Character in a String.
                let numbers = client.buffer.split(separator: UInt8(ascii: "\n")).compactMap { line in
                    let text = String(decoding: line, as: UTF8.self)
                    return text.hasPrefix("data: ") ? Int(text.dropFirst(6)) : nil
                }
                #expect(numbers == Array(0..<200))
            }
        }
    }
}
