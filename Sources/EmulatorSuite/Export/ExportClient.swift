import EmulatorSupport

/// `emulators export <dir>`: finds the running suite through the hub locator and asks it to export.
///
/// Messages are the official CLI's, so scripts that match on them keep working.
package struct ExportClient: Sendable {
    package var console: Console
    /// Where locator files live (`$TMPDIR` or `/tmp`).
    package var locatorDirectory: String

    package init(console: Console, locatorDirectory: String = LocalFiles.temporaryDirectory()) {
        self.console = console
        self.locatorDirectory = locatorDirectory
    }

    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package var message: String
        /// What to try next, printed after the official message.
        package var hint: String?
        package init(message: String, hint: String? = nil) {
            self.message = message
            self.hint = hint
        }
        package var description: String { message }
    }

    /// Runs the export. `projectId` is already resolved; `path` is absolute.
    package func run(projectId: String, path: String, only: [String]?, force: Bool) throws(Failure) {
        var targets: [EmulatorKind]?
        if let only {
            do {
                let selected = try EmulatorSelection.resolve(only: only, configured: Set(EmulatorKind.selectable))
                targets = selected.kinds.sorted()
            } catch {
                throw Failure(message: error.message)
            }
        }
        let locator = HubLocator(directory: locatorDirectory, projectId: projectId, pid: 0)
        guard let document = HubLocator.read(locator.path), case .array(let origins)? = document[member: "origins"] else {
            throw Failure(
                message: "Did not find any running emulators for project \(projectId).",
                hint: "Looked for \(locator.path), which a running suite of that project writes. Start one with "
                    + "'emulators start', or name the running suite's project with -P <project>.")
        }
        var hub: (host: String, port: Int, origin: String)?
        for case .string(let origin) in origins {
            guard let (host, port) = Self.hostPort(origin) else { continue }
            let request = LoopbackHTTPClient.Request(method: "GET", host: host, port: port, path: "/", timeout: .seconds(5))
            if let reply = try? LoopbackHTTPClient.send(request), reply.status == 200 {
                hub = (host, port, origin)
                break
            }
        }
        guard let hub else {
            throw Failure(
                message:
                    "The emulator hub for \(projectId) did not respond to a status check. If this error continues try shutting down all running emulators and deleting the file \(locator.path)")
        }
        console.info(nil, "Found running emulator hub for project \(projectId) at \(hub.origin)")

        switch LocalFiles.kind(path) {
        case .missing:
            console.info(nil, "Creating export directory \(path)")
            guard LocalFiles.makeDirectories(path) else { throw Failure(message: "Could not create directory \(path)") }
        case .directory:
            if !LocalFiles.list(path).isEmpty && !force {
                throw Failure(message: "Export already exists in the target directory, re-run with --force to overwrite.")
            }
        case .file, .other:
            throw Failure(message: "\(path) exists and is not a directory.")
        }

        var members = [JSONMember("path", .string(path)), JSONMember("initiatedBy", .string("emulators:export"))]
        if let targets { members.append(JSONMember("targets", .array(targets.map { .string($0.rawValue) }))) }
        console.info(nil, "Exporting data to: \(path)")
        let request = LoopbackHTTPClient.Request(
            method: "POST", host: hub.host, port: hub.port, path: "/_admin/export",
            headers: [("Content-Type", "application/json")], body: JSONWriter.encode(.object(members)),
            timeout: .seconds(600))
        let reply: LoopbackHTTPClient.Reply
        do {
            reply = try LoopbackHTTPClient.send(request)
        } catch {
            throw Failure(message: "Export request failed, see emulator logs for more information.")
        }
        guard reply.status == 200 else {
            if let value = try? JSONReader.parse(reply.body), case .string(let reason)? = value[member: "message"] {
                console.warning("hub", reason)
            }
            throw Failure(message: "Export request failed, see emulator logs for more information.")
        }
        console.success(nil, "Export complete")
    }

    /// `http://127.0.0.1:4400` → ("127.0.0.1", 4400); `http://[::1]:4400` → ("::1", 4400).
    static func hostPort(_ origin: String) -> (String, Int)? {
        guard origin.hasPrefix("http://") else { return nil }
        let rest = origin.dropFirst("http://".count).prefix { $0 != "/" }
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]) else { return nil }
        var host = String(rest[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }
}
