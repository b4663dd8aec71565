import Testing
@testable import EmulatorSupport

@Suite struct LoggerTests {
    static let verbosityTable: [(LogVerbosity, [LogLevel])] = [
        (.debug, [.debug, .info, .warning, .error]),
        (.info, [.info, .warning, .error]),
        (.quiet, [.warning, .error]),
        (.silent, []),
    ]

    @Test(arguments: verbosityTable)
    func verbosityFiltersLevels(verbosity: LogVerbosity, written: [LogLevel]) {
        let memory = MemoryLogHandler()
        let logger = Logger(label: "database", verbosity: verbosity, handler: memory)
        logger.debug("d")
        logger.info("i")
        logger.warning("w")
        logger.error("e")
        #expect(memory.records.map(\.level) == written)
        #expect(memory.records.allSatisfy { $0.label == "database" })
    }

    @Test func filteredMessagesAreNotBuilt() {
        let memory = MemoryLogHandler()
        let logger = Logger(label: "hub", verbosity: .info, handler: memory)
        var built = false
        func expensive() -> String {
            built = true
            return "x"
        }
        logger.debug(expensive())
        #expect(!built)
        #expect(memory.records.isEmpty)
    }

    @Test(arguments: [("DEBUG", LogVerbosity.debug), ("info", .info), ("Quiet", .quiet), ("SILENT", .silent)])
    func parsesCLIVerbosityNames(text: String, expected: LogVerbosity) {
        #expect(LogVerbosity(text) == expected)
    }

    @Test func rejectsUnknownVerbosity() {
        #expect(LogVerbosity("loud") == nil)
    }

    @Test func formatsLineWithUTCTimestamp() {
        let record = LogRecord(level: .warning, label: "firestore", message: "hello", timestampMicroseconds: 1_763_784_105_123_456)
        #expect(record.formattedLine == "2025-11-22T04:01:45.123Z warning [firestore] hello")
        #expect(LogRecord.iso8601(0) == "1970-01-01T00:00:00.000Z")
        #expect(LogRecord.iso8601(951_782_400_000_000) == "2000-02-29T00:00:00.000Z")
        #expect(LogRecord.iso8601(-1_000) == "1969-12-31T23:59:59.999Z")
    }

    @Test func withLabelKeepsHandler() {
        let memory = MemoryLogHandler()
        let logger = Logger(label: "hub", handler: memory).withLabel("firestore")
        logger.info("x")
        #expect(memory.records.map(\.label) == ["firestore"])
        memory.removeAll()
        #expect(memory.records.isEmpty)
    }
}

@Suite struct ClockTests {
    @Test func wallClockIsAfter2024AndConsistent() {
        let micros = WallClock.nowMicroseconds()
        let (seconds, nanos) = WallClock.now()
        #expect(micros > 1_704_067_200_000_000)
        #expect(nanos >= 0 && nanos < 1_000_000_000)
        #expect(seconds - micros / 1_000_000 < 5)
    }

    @Test func monotonicClockDoesNotGoBackwards() {
        let first = MonotonicClock.nanoseconds()
        let second = MonotonicClock.nanoseconds()
        #expect(second >= first)
    }
}
