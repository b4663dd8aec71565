import DatabaseEmulator
import EmulatorHTTP
import EmulatorStorage
import EmulatorSupport
import Testing

/// Overwritten and deleted RTDB values are freed when the write ends (the RTDB never reads at an
/// earlier time), not kept for the engine's hour of history.
@Suite struct HistoryMemoryTests {
    @Test func overwritesThenDeleteLeaveNoHistory() {
        let storage = StorageEngine(keepsHistory: { !DatabaseStorageMapping.isDatabaseNamespace($0) })
        let db = DatabaseTestClient(storage: storage)
        let value = "\"" + String(repeating: "x", count: 256 * 1024) + "\""
        for i in 0..<30 {
            #expect(db.put("/big.json?ns=h", value.dropLast() + "\(i)\"").status.code == 200)
            #expect(db.put("/tree/\(i % 3).json?ns=h", #"{"a":"\#(i)","b":{"c":\#(i)}}"#).status.code == 200)
        }
        #expect(db.delete("/big.json?ns=h").status.code == 200)
        #expect(db.delete("/tree.json?ns=h").status.code == 200)
        // Before: about 30 × 256 KiB stayed in the engine's history for an hour.
        #expect(storage.historyFootprint(of: NamespaceID("database/h")) == (0, 0))
        #expect(db.value("/.json?ns=h") == .null)
    }
}
