import EmulatorModel
import EmulatorSnapshot
import FirestoreEmulator
import EmulatorStorage
import EmulatorSupport
import Glibc

/// Snapshot figures: export and import of N Firestore documents through the official on-disk
/// format (MB/s, peak RSS), time to load a snapshot into the engine, and write throughput with
/// the live data directory (journal) against in-memory. Run from a release build.
///
/// quick: 100k small documents. Full: 1M documents of ~1 KB (≈1 GB of entity records).
/// `EmulatorBenchmarks snapshot [full]`; `SNAPSHOT_BENCH_NO_JOURNAL=1` skips the journal part,
/// `SNAPSHOT_BENCH_ONLY_JOURNAL=1` runs only it. Wall times include other load on the machine;
/// CPU times (this thread) are the stable figures on a shared box.
func runSnapshotBenchmark(quick: Bool) {
    if getenv("SNAPSHOT_BENCH_ONLY_JOURNAL") != nil {
        let root = "/tmp/emulators-journal-bench-\(getpid())"
        try? SnapshotFileSystem().makeDirectories(root)
        journalThroughput(root: root)
        SnapshotFileSystem().removeTree(root)
        return
    }
    let count = quick ? 100_000 : 1_000_000
    let padding = quick ? 0 : 900
    print("== snapshot: \(count) documents\(padding > 0 ? " with a \(padding) B text field" : "") ==")
    let root = "/tmp/emulators-snapshot-bench-\(getpid())"
    let fs = SnapshotFileSystem()
    fs.removeTree(root)
    defer { fs.removeTree(root) }
    try? fs.makeDirectories(root)

    // The documents live in an engine, stored as the Firestore emulator stores them.
    let cities = ["London", "Paris", "Tokyo", "Lagos", "Lima", "Oslo", "Pune", "Quito"]
    let filler = String(repeating: "x", count: padding)
    let source = StorageEngine()
    var batch: [FirestoreSnapshotAdapter.Entry] = []
    for i in 0..<count {
        var fields: ValueMap = [
            "name": .string("user-\(i)"), "age": .integer(Int64(18 + i % 60)), "city": .string(cities[i % cities.count]),
            "score": .double(Double(i % 1000) / 10), "tags": .array([.string("a\(i % 7)"), .string("b\(i % 11)")]),
        ]
        if padding > 0 { fields.modify("bio") { $0 = .string(filler) } }
        if let entry = try? FirestoreSnapshotAdapter.entry(
            database: DatabaseID(project: "bench", database: "(default)"), path: ResourcePath(segments: ["users", "u\(i)"]),
            fields: fields)
        {
            batch.append(entry)
        }
        if batch.count == 20_000 || i == count - 1 {
            try? FirestoreSnapshotAdapter.load(batch, into: source)
            batch.removeAll(keepingCapacity: true)
        }
    }
    let baseline = snapshotPeakRSS()
    print("documents stored in an engine; RSS peak so far \(mebibytes(baseline)) MiB")

    // Export as the suite does: one engine snapshot, every document through the Firestore adapter.
    let exporter = SnapshotExporter(version: "bench")
    let start = snapshotNanos()
    let cpu = snapshotCPUNanos()
    do {
        let cut = try source.snapshot()
        try exporter.export(to: root + "/export", force: true, database: []) { (writer: inout FirestoreExportWriter) throws(SnapshotError) in
            try FirestoreSnapshotAdapter.exportStoredDocuments(from: cut) {
                (database: DatabaseID, path: ResourcePath, stored: StoredEntry) throws(SnapshotError) in
                try writer.add(stored: FirestoreStoredDocument(
                    projectID: database.project, databaseID: database.database, path: path, encodedFields: stored.value,
                        createTime: stored.createTime, updateTime: stored.updateTime))
            }
        }
    } catch {
        print("export failed: \(error)")
        return
    }
    let exportNanos = snapshotNanos() - start
    let exportCPU = snapshotCPUNanos() - cpu
    let output = root + "/export/firestore_export/all_namespaces/all_kinds/output-0"
    let bytes = fs.fileSize(output) ?? 0
    print("export: \(seconds(exportNanos)) s wall (fsync included), \(seconds(exportCPU)) s CPU; \(mebibytes(bytes)) MiB on disk; \(rate(bytes, exportNanos)) MB/s wall, \(rate(bytes, exportCPU)) MB/s CPU")


    // Import as `--import` does it, in a fresh process (this one still holds the exporting
    // engine, whose memory would count in the peak): first from a cold page cache (the export's
    // pages dropped, as after a reboot; also what follows an O_DIRECT export), then warm.
    withExtendedLifetime(source) {}
    fflush(nil)  // every stream: the child writes to the same stdout
    for cold in [true, false] {
        if cold { dropPageCache(root + "/export") }
        let status = spawnSelf(["snapshot-import"], environment: ["SNAPSHOT_BENCH_IMPORT_DIR=" + root + "/export"] + (cold ? ["SNAPSHOT_BENCH_COLD=1"] : []))
        if status != 0 { print("import child exited with \(status)") }
    }

    if getenv("SNAPSHOT_BENCH_NO_JOURNAL") == nil { journalThroughput(root: root) }
}

/// `EmulatorBenchmarks snapshot-import` (run by `snapshot` in a child process): imports the
/// export in `SNAPSHOT_BENCH_IMPORT_DIR` as `--import` does (read + verify + transcode, then load
/// into a fresh engine) and prints the times and this process's peak RSS against the export size.
/// Lines for a cold page cache (`SNAPSHOT_BENCH_COLD=1`) are the ones the harness parses; warm
/// ones start with "warm".
func runSnapshotImportBenchmark() {
    guard let directory = getenv("SNAPSHOT_BENCH_IMPORT_DIR").map({ String(cString: $0) }) else {
        print("snapshot-import: set SNAPSHOT_BENCH_IMPORT_DIR to an export directory")
        return
    }
    let cold = getenv("SNAPSHOT_BENCH_COLD") != nil
    let label = cold ? "" : "warm "
    let fs = SnapshotFileSystem()
    let bytes = fs.fileSize(directory + "/firestore_export/all_namespaces/all_kinds/output-0") ?? 0
    let before = snapshotPeakRSS()
    var start = snapshotNanos()
    var cpu = snapshotCPUNanos()
    var entries: [FirestoreSnapshotAdapter.Entry] = []
    let imported: ImportedSnapshot
    do {
        imported = try SnapshotImporter().read(directory: directory) { document in
            if let entry = try? FirestoreSnapshotAdapter.entry(
                database: DatabaseID(project: "bench", database: document.databaseID), path: document.path,
                encodedFields: document.encodedFields)
            {
                entries.append(entry)
            }
        }
    } catch {
        print("import failed: \(error)")
        return
    }
    let importNanos = snapshotNanos() - start
    let importCPU = snapshotCPUNanos() - cpu
    print("\(label)import (\(cold ? "cold page cache, " : "")fresh process; read + verify + transcode to the stored encoding): \(seconds(importNanos)) s wall, \(seconds(importCPU)) s CPU (main thread; transcoding uses a second thread); \(rate(bytes, importNanos)) MB/s wall; \(imported.firestoreCount) documents")
    let engine = StorageEngine()
    start = snapshotNanos()
    cpu = snapshotCPUNanos()
    try? FirestoreSnapshotAdapter.load(entries, into: engine)
    entries = []
    let loadNanos = snapshotNanos() - start
    let loadCPU = snapshotCPUNanos() - cpu
    print("\(label)load into the engine: \(seconds(loadNanos)) s wall, \(seconds(loadCPU)) s CPU; import + load (ready) = \(seconds(importNanos + loadNanos)) s wall")
    let peak = snapshotPeakRSS()
    print("\(label)peak RSS of the importing process (VmHWM) \(mebibytes(peak)) MiB (\(mebibytes(before)) MiB at start) = \(fixedPoint(Double(peak) / Double(max(bytes, 1)), 2))x the export size")
    withExtendedLifetime(engine) {}
}

/// Syncs every file under `directory` and drops its pages from the page cache
/// (`POSIX_FADV_DONTNEED`; no root needed), so the next read comes from disk.
private func dropPageCache(_ directory: String) {
    let fs = SnapshotFileSystem()
    for name in (try? fs.list(directory)) ?? [] {
        let path = directory + "/" + name
        if fs.isDirectory(path) { dropPageCache(path); continue }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { continue }
        fsync(fd)
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        close(fd)
    }
}

/// Runs this executable with `arguments` (plus `environment` on top of ours) and waits; returns
/// its exit status (-1 when it could not start).
private func spawnSelf(_ arguments: [String], environment: [String]) -> Int32 {
    var argv: [UnsafeMutablePointer<CChar>?] = (["EmulatorBenchmarks"] + arguments).map { strdup($0) } + [nil]
    var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) }
    var index = 0
    while let entry = environ[index] {
        envp.append(strdup(entry))
        index += 1
    }
    envp.append(nil)
    defer {
        for pointer in argv { free(pointer) }
        for pointer in envp { free(pointer) }
    }
    var pid: pid_t = 0
    guard posix_spawn(&pid, "/proc/self/exe", nil, nil, &argv, &envp) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
}

private func journalThroughput(root: String) {
    print("-- write throughput: 1-document commits (100 B), 1 s per run --")
    let value = [UInt8](repeating: 0x61, count: 100)
    func run(_ label: String, writers: Int, durability: DataDirectory.Durability?) -> Double {
        let engine = StorageEngine()
        var data: DataDirectory?
        if let durability {
            let dir = root + "/live-\(label)-\(writers)"
            data = try? DataDirectory.open(dir, engine: engine, durability: durability)
        }
        let namespace: NamespaceID = "firestore/bench/(default)"
        let deadline = snapshotNanos() + 1_000_000_000
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: writers)
        counts.initialize(repeating: 0, count: writers)
        defer { counts.deallocate() }
        var threads: [PosixThread.Joinable] = []
        final class Job: @unchecked Sendable {
            // Read-only after init; each thread writes only its own slot of `counts`.
            let engine: StorageEngine, slot: UnsafeMutablePointer<Int>, deadline: Int64, value: [UInt8], id: Int
            init(engine: StorageEngine, slot: UnsafeMutablePointer<Int>, deadline: Int64, value: [UInt8], id: Int) {
                self.engine = engine; self.slot = slot; self.deadline = deadline; self.value = value; self.id = id
            }
        }
        for w in 0..<writers {
            let job = Job(engine: engine, slot: counts + w, deadline: deadline, value: value, id: w)
            let thread = PosixThread.start {
                var n = 0
                while snapshotNanos() < job.deadline {
                    let key = StorageKey(segments: ["docs", "w\(job.id)-\(n)"])
                    _ = try? job.engine.commit { (txn: inout CommitBuilder) throws(StorageError) in
                        _ = try txn.put("firestore/bench/(default)", key, job.value)
                    }
                    n += 1
                }
                job.slot.pointee = n
            }
            if let thread { threads.append(thread) }
        }
        for thread in threads { thread.join() }
        _ = namespace
        data?.close()
        var total = 0
        for w in 0..<writers { total += counts[w] }
        SnapshotFileSystem().removeTree(root + "/live-\(label)-\(writers)")
        return Double(total)
    }
    // Alternate the modes (3 rounds, medians) so load from other processes hits all alike.
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    for writers in [1, 4] {
        var memory: [Double] = [], written: [Double] = [], synced: [Double] = []
        for _ in 0..<3 {
            memory.append(run("memory", writers: writers, durability: nil))
            written.append(run("write", writers: writers, durability: .write))
            synced.append(run("sync", writers: writers, durability: .sync))
        }
        let m = median(memory), w = median(written), y = median(synced)
        print("\(writers) writer(s), medians of 3: in-memory \(Int(m))/s; journal, write before ack (survives kill -9) \(Int(w))/s = \(Int(w / m * 100))%; journal, fdatasync group commit (survives power loss) \(Int(y))/s = \(Int(y / m * 100))%")
    }
}

private func snapshotCPUNanos() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

private func snapshotNanos() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

/// VmHWM from /proc/self/status, in bytes.
private func snapshotPeakRSS() -> Int {
    guard let bytes = try? SnapshotFileSystem().read("/proc/self/status") else { return 0 }
    let text = String(decoding: bytes, as: UTF8.self)
    for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.filter(\.isNumber)
        return (Int(digits) ?? 0) * 1024
    }
    return 0
}

private func seconds(_ nanos: Int64) -> String { fixedPoint(Double(nanos) / 1e9, 3) }
private func mebibytes(_ bytes: Int) -> String { fixedPoint(Double(bytes) / 1_048_576, 1) }
private func rate(_ bytes: Int, _ nanos: Int64) -> String { fixedPoint(Double(bytes) / 1e6 / (Double(nanos) / 1e9), 1) }

private func fixedPoint(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return String(rounded)
}
