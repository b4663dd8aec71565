import Testing

@testable import EmulatorSuite

@Suite("Shutdown signals: first, ignored within 100 ms, then exit now")
struct ShutdownSignalsTests {
    @Test func aSignalWithin100MillisecondsOfTheFirstIsIgnored() {
        let start = ContinuousClock.now
        var counter = ShutdownSignals()
        #expect(counter.receive(at: start) == .first)
        #expect(counter.receive(at: start + .milliseconds(1)) == .ignored)
        #expect(counter.receive(at: start + .milliseconds(99)) == .ignored)
        #expect(counter.receive(at: start + .milliseconds(100)) == .exitNow)
        #expect(counter.receive(at: start + .seconds(5)) == .exitNow)
    }

    @Test func theWindowCountsFromTheFirstSignalNotTheLastIgnoredOne() {
        let start = ContinuousClock.now
        var counter = ShutdownSignals()
        counter.receive(at: start)
        #expect(counter.receive(at: start + .milliseconds(90)) == .ignored)
        #expect(counter.receive(at: start + .milliseconds(150)) == .exitNow)
        #expect(counter.firstAt == start)
    }
}
