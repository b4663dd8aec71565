#if canImport(Glibc)
import Glibc
#endif
package import EmulatorSupport

/// The locator file `<tmp>/hub-<project>.json` that `emulators export` uses to find a running suite.
///
/// Written after the hub listens, unless a live process already owns it; removed at exit only if
/// it is still ours.
package struct HubLocator: Sendable {
    package var path: String
    package var pid: Int

    package init(directory: String, projectId: String, pid: Int) {
        self.path = directory + "/hub-\(projectId).json"
        self.pid = pid
    }

    /// What `claim` did.
    package enum Outcome: Sendable, Equatable {
        case written
        /// Another live suite for the same project owns the file (its pid).
        case ownedByLiveProcess(Int)
        case failed
    }

    /// Writes `document` unless another live process owns the file.
    package func claim(_ document: JSONValue) -> Outcome {
        if let owner = Self.read(path).flatMap(Self.ownerPid), owner != pid, Self.isAlive(owner) {
            return .ownedByLiveProcess(owner)
        }
        var bytes = JSONWriter.encode(document, pretty: true)
        bytes.append(UInt8(ascii: "\n"))
        return LocalFiles.write(bytes, to: path) ? .written : .failed
    }

    /// Removes the file if its pid is ours.
    package func release() {
        guard let owner = Self.read(path).flatMap(Self.ownerPid), owner == pid else { return }
        unlink(path)
    }

    /// The parsed file, if present and valid JSON.
    package static func read(_ path: String) -> JSONValue? {
        guard let bytes = LocalFiles.read(path) else { return nil }
        return try? JSONReader.parse(bytes)
    }

    static func ownerPid(_ document: JSONValue) -> Int? {
        if case .int(let pid)? = document[member: "pid"] { return Int(pid) }
        return nil
    }

    /// `kill(pid, 0)`: the process exists (EPERM means it exists but is someone else's).
    package static func isAlive(_ pid: Int) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid_t(pid), 0) == 0 || errno == EPERM
    }
}
