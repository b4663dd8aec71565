#if canImport(Glibc)
import Glibc
#endif

/// Runs a shell command as `/bin/sh -c <script>` with inherited stdio and extra environment.
package struct ScriptRunner: Sendable {
    /// How the command ended.
    package enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    package init() {}

    /// Starts the command; the child gets default signal dispositions and an empty signal mask
    /// (the parent keeps its shutdown signals blocked for `SignalWatcher`).
    package func spawn(_ script: String, environment extra: [String: String]) -> Int32? {
        var environment: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        for (key, value) in extra where !(key == "FIREBASE_CONFIG" && environment[key] != nil) {
            environment[key] = value
        }
        let arguments = ["/bin/sh", "-c", script]
        let entries = environment.map { "\($0.key)=\($0.value)" }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = SignalWatcher.signalSet()
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var pid = pid_t()
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = entries.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        let status = posix_spawn(&pid, "/bin/sh", nil, &attributes, argv, envp)
        return status == 0 ? pid : nil
    }

    /// The child's termination if it has ended, without blocking.
    package func poll(_ pid: Int32) -> Termination? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return nil }
        let low = status & 0x7F
        if low == 0 { return .exited((status >> 8) & 0xFF) }
        return .signaled(low)
    }
}
