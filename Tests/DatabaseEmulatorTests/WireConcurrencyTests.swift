import EmulatorModel
import struct EmulatorModel.DatabasePath
import EmulatorSupport
import Synchronization
import Testing

@testable import DatabaseEmulator

/// Pushes under concurrent writers: a client that applies every `d`/`m` it receives, in order,
/// ends with exactly the server's data, even when its listen opens while writes are under way.
@Suite struct WireConcurrencyTests {
    /// Applies the data pushes of `messages` to `root`, as a client cache would.
    static func apply(_ messages: [String], to root: DatabaseNode) -> DatabaseNode {
        var root = root
        for text in messages {
            guard let json = try? JSONReader.parse(text), let data = json[member: "d"], case .string(let action)? = data[member: "a"],
                let body = data[member: "b"], case .string(let p)? = body[member: "p"]
            else { continue }
            let path = DatabasePath(keys: p.split(separator: "/").map(String.init))
            let value = body[member: "d"] ?? .null
            switch action {
            case "d": root = root.setting(path, to: DatabaseNode.build(value, existing: .empty, now: 0))
            case "m":
                guard case .object(let members) = value else { continue }
                for member in members {
                    let relative = DatabasePath(keys: member.name.split(separator: "/").map(String.init))
                    root = root.setting(path.appending(relative), to: DatabaseNode.build(member.value, existing: .empty, now: 0))
                }
            default: continue
            }
        }
        return root
    }

    @Test func clientCacheConvergesUnderConcurrentWriters() async {
        let db = DatabaseTestClient()
        db.put("/c.json?ns=w", #"{"seed":{"v":0}}"#)
        let early = WireSessionProbe(db)
        early.request(1, "q", #"{"p":"/c","h":""}"#)
        let late = WireSessionProbe(db)
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for i in 0..<40 {
                        switch i % 4 {
                        case 0: db.put("/c/w\(writer)/k\(i).json?ns=w", #"{"n":\#(i)}"#)
                        case 1: db.patch("/c/w\(writer).json?ns=w", #"{"k\#(i - 1)/n":\#(i),"x":\#(i)}"#)
                        case 2: db.delete("/c/w\(writer)/k\(i - 2).json?ns=w")
                        default: db.patch("/c.json?ns=w", #"{"seed":{"v":\#(i)}}"#)
                        }
                    }
                }
            }
            // This listen opens while the writers run.
            late.request(1, "q", #"{"p":"/c","h":""}"#)
        }
        let server = db.emulator.exportData(namespace: "w")[member: "c"] ?? .null
        #expect(server != .null)
        for probe in [early, late] {
            let messages = probe.take()
            #expect(messages.contains(WireSessionProbe.reply(1, "ok", "{}")))
            let cache = Self.apply(messages, to: .empty).child(at: DatabasePath(keys: ["c"]))
            #expect(cache.json(export: true) == server)
        }
    }
}
