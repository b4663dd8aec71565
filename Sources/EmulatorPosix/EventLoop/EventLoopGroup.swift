import CEmulatorLinux
import Glibc
import Synchronization

/// A fixed set of event loops that servers share.
///
/// Every server in the process uses ``shared`` unless given another group: the emulators, the hub
/// and their ports all run on the same two loop threads (the machine has two cores; more threads
/// only add context switches). Each server's listening socket lives on one loop; accepted
/// connections are handed out round-robin so both loops carry load. Loop threads live for the
/// whole process.
package final class EventLoopGroup: Sendable {
    let loops: [EventLoop]
    private let cursor = Atomic<Int>(0)

    /// The process-wide group, started on first use with one loop per core the process may run
    /// on (at most 4, at least 1): pinned to one core (`taskset`, a container's cpuset), two loops
    /// would only take turns on it.
    package static let shared: EventLoopGroup = {
        let allowed = Int(cemu_available_cpus())
        let cores = allowed > 0 ? allowed : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        do {
            return try EventLoopGroup(loopCount: min(max(cores, 1), 4))
        } catch {
            // Only epoll_create/eventfd can fail, i.e. the process is out of descriptors at start-up.
            // A group without loops makes every `start` fail with a clear error instead.
            return EventLoopGroup(empty: ())
        }
    }()

    /// Starts `loopCount` loop threads.
    package init(loopCount: Int) throws(ServerError) {
        var loops: [EventLoop] = []
        for index in 0..<max(loopCount, 1) {
            loops.append(try EventLoop(index: index))
        }
        self.loops = loops
        for loop in loops { loop.start() }
    }

    private init(empty: Void) {
        loops = []
    }

    /// The next loop in round-robin order.
    func next() -> EventLoop {
        let n = cursor.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[n % loops.count]
    }

    package var loopCount: Int { loops.count }
}
