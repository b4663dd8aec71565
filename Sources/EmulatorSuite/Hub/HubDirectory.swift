package import EmulatorSupport
import Synchronization

/// What the hub knows about the running suite: filled in as listeners bind, read by its routes.
///
/// ```swift
/// directory.register(.firestore, host: "127.0.0.1", port: 8080)
/// JSONWriter.encodeToString(directory.emulatorsDocument, pretty: true)
/// ```
package final class HubDirectory: Sendable {
    package struct Entry: Sendable, Equatable {
        package var kind: EmulatorKind
        package var host: String
        package var port: Int
        /// Every address bound (`localhost`: 127.0.0.1 and ::1); empty means just `host`.
        package var addresses: [String] = []

        /// The addresses to list: the bound ones, or the advertised host.
        var listenAddresses: [String] { addresses.isEmpty ? [host] : addresses }
    }

    package let version: String
    package let pid: Int
    private let entries = Mutex<[Entry]>([])

    package init(version: String = SuiteVersion.current, pid: Int) {
        self.version = version
        self.pid = pid
    }

    package func register(_ kind: EmulatorKind, host: String, port: Int, addresses: [String] = []) {
        entries.withLock { entries in
            entries.removeAll { $0.kind == kind }
            entries.append(Entry(kind: kind, host: host, port: port, addresses: addresses))
        }
    }

    package var running: [Entry] {
        entries.withLock { $0 }.sorted { $0.kind < $1.kind }
    }

    package var hub: Entry? {
        running.first { $0.kind == .hub }
    }

    /// `http://host:port` for each address of the hub; IPv6 in brackets.
    package var origins: [String] { origins(of: .hub) }

    /// `http://host:port` for each address `kind` listens on; IPv6 in brackets.
    package func origins(of kind: EmulatorKind) -> [String] {
        guard let entry = running.first(where: { $0.kind == kind }) else { return [] }
        return entry.listenAddresses.map { "http://" + ListenAddress.hostPort($0, entry.port) }
    }

    /// The locator file's contents: `{"version", "origins", "pid"}`.
    package var locatorDocument: JSONValue {
        .object([
            JSONMember("version", .string(version)),
            JSONMember("origins", .array(origins.map(JSONValue.string))),
            JSONMember("pid", .int(Int64(pid))),
        ])
    }

    /// `GET /`: the locator plus the hub's host and port.
    package var rootDocument: JSONValue {
        guard case .object(var members) = locatorDocument else { return locatorDocument }
        if let hub {
            members.append(JSONMember("host", .string(hub.host)))
            members.append(JSONMember("port", .int(Int64(hub.port))))
        }
        return .object(members)
    }

    /// `GET /emulators`: name → `{listen, name, host, port, pid}` for every running listener.
    package var emulatorsDocument: JSONValue {
        .object(running.map { entry in
            let listen: [JSONValue] = entry.listenAddresses.map { address in
                .object([
                    JSONMember("address", .string(address)),
                    JSONMember("family", .string(address.contains(":") ? "IPv6" : "IPv4")),
                    JSONMember("port", .int(Int64(entry.port))),
                ])
            }
            return JSONMember(entry.kind.rawValue, .object([
                JSONMember("listen", .array(listen)),
                JSONMember("name", .string(entry.kind.rawValue)),
                JSONMember("host", .string(entry.host)),
                JSONMember("port", .int(Int64(entry.port))),
                JSONMember("pid", .int(Int64(pid))),
            ]))
        })
    }
}
