import CEmulatorLinux
import EmulatorHTTP
import EmulatorSupport
import Glibc
import Synchronization
import Testing

@testable import EmulatorPosix

@Suite struct AcceptBackoffTests {
    @Test func pausesDoubleUpToOneSecondAndLogOnce() {
        var backoff = AcceptBackoff()
        var pauses: [Int64] = []
        var logs = 0
        for _ in 0..<10 {
            guard case .pause(let resumeAt, let log) = backoff.failed(errno: EMFILE, now: 1_000, port: 8080) else {
                Issue.record("EMFILE must pause the listener")
                return
            }
            pauses.append(resumeAt - 1_000)
            if let log {
                logs += 1
                #expect(log.contains("port 8080") && log.contains("EMFILE"))
            }
        }
        #expect(logs == 1)
        #expect(
            pauses == [
                10_000_000, 20_000_000, 40_000_000, 80_000_000, 160_000_000, 320_000_000, 640_000_000, 1_000_000_000,
                1_000_000_000, 1_000_000_000,
            ])
        #expect(backoff.accepted(port: 8080) == .recovered(log: "port 8080: accepting connections again (10 pauses for descriptors)"))
        #expect(backoff.accepted(port: 8080) == .proceed)
        // A new shortage starts from the shortest pause; within a minute of the last line it is
        // not logged again (nor its end), after that it is.
        #expect(backoff.failed(errno: ENFILE, now: 2_000, port: 1) == .pause(resumeAt: 2_000 + AcceptBackoff.firstPauseNanos, log: nil))
        #expect(backoff.accepted(port: 1) == .proceed)
        let later = 1_000 + AcceptBackoff.quietNanos
        guard case .pause(_, let log) = backoff.failed(errno: ENFILE, now: later, port: 1) else {
            Issue.record("ENFILE must pause the listener")
            return
        }
        #expect(log?.contains("the system is out of file descriptors (ENFILE)") == true)
        #expect(backoff.accepted(port: 1) == .recovered(log: "port 1: accepting connections again (1 pause for descriptors)"))
    }

    @Test(arguments: [EAGAIN, ECONNABORTED, EINTR, EPROTO])
    func harmlessFailuresDoNotPause(errno: Int32) {
        var backoff = AcceptBackoff()
        #expect(backoff.failed(errno: errno, now: 0, port: 1) == .proceed)
        #expect(backoff.accepted(port: 1) == .proceed)
    }
}

@Suite(.serialized) struct DescriptorExhaustionTests {
    /// `accept4` failing with EMFILE while a client waits in the backlog: the listener must not be
    /// retried on every wake-up (before the fix: tens of thousands of calls in 300 ms, one core
    /// at 100%), the shortage is logged once, and the waiting client is served once accepting
    /// works again.
    @Test func exhaustedListenerBacksOffLogsOnceAndResumes() throws {
        let exhausted = Atomic<Bool>(true)
        let attempts = Atomic<Int>(0)
        let memory = MemoryLogHandler()
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.logger = Logger(label: "test", verbosity: .debug, handler: memory)
        configuration.acceptOverride = { fd in
            attempts.add(1, ordering: .relaxed)
            if exhausted.load(ordering: .acquiring) { return (-1, EMFILE) }
            let accepted = cemu_accept_nonblocking(fd)
            return (accepted, accepted < 0 ? cemu_errno() : 0)
        }
        var router = Router()
        router.add(.get, "/ping") { _ in .text("pong") }
        try HTTPServer.withServer(configuration, handler: router.respond(to:), gracePeriod: .milliseconds(200)) { server in
            let client = try #require(RawClient(port: server.port))
            client.send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
            usleep(300_000)
            let during = attempts.load(ordering: .relaxed)
            #expect(during >= 1)
            #expect(during <= 20, "accept retried \(during) times in 300 ms")
            let warnings = memory.records.filter { $0.level == .warning }
            #expect(warnings.count == 1)
            #expect(warnings.first?.message.contains("out of file descriptors (EMFILE)") == true)

            exhausted.store(false, ordering: .releasing)
            let response = try #require(client.response())
            #expect(response.body == "pong")
            #expect(memory.records.contains { $0.level == .info && $0.message.contains("accepting connections again") })
        }
    }

    @Test func startingAServerRaisesTheSoftDescriptorLimitToTheHardLimit() throws {
        let before = DescriptorLimit.current
        guard before.soft < before.hard else {
            // Already raised (by an earlier server in this process, or by the shell): lower it by
            // one (other tests keep running meanwhile) to see the start raise it again.
            var lowered = rlimit(rlim_cur: rlim_t(before.hard - 1), rlim_max: rlim_t(before.hard))
            try #require(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &lowered) == 0)
            try checkRaised(hard: before.hard)
            return
        }
        try checkRaised(hard: before.hard)
    }

    private func checkRaised(hard: UInt64) throws {
        try HTTPServer.withServer(ServerConfiguration(host: "127.0.0.1", port: 0), handler: { _ in .text("") }, gracePeriod: .milliseconds(100)) { _ in
            #expect(DescriptorLimit.current.soft == hard)
        }
    }
}
