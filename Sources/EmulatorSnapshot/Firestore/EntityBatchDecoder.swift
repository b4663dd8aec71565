import EmulatorProtobuf
import EmulatorSupport
import Glibc

/// Decodes batches of entity records on two threads (the decode is CPU-bound and records are
/// independent), keeping record order and reporting the first bad record. `prepare` also runs on
/// the decoding threads, so a caller's conversion (e.g. to the stored form) is parallel too.
struct EntityBatchDecoder<Prepared> {
    /// Records buffered with their file offsets, waiting to be decoded.
    var records: [[UInt8]] = []
    var offsets: [Int] = []
    let batchSize = 16_384
    let transform: @Sendable ([UInt8]) throws(ProtoFailure) -> Prepared

    /// `transform` turns one record into what the caller keeps (a decoded document, or the
    /// storage encoding directly); it runs on the decoding threads.
    init(transform: @escaping @Sendable ([UInt8]) throws(ProtoFailure) -> Prepared) {
        self.transform = transform
    }

    var isFull: Bool { records.count >= batchSize }

    mutating func append(_ record: [UInt8], offset: Int) {
        records.append(record)
        offsets.append(offset)
    }

    /// Decodes what is buffered, calls `body` in record order (handing each result over, not a
    /// copy), and empties the buffer.
    mutating func flush(file: String, _ body: (consuming Prepared) -> Void) throws(SnapshotError) {
        guard !records.isEmpty else { return }
        let job = Job(records: records, transform: transform)
        records.removeAll(keepingCapacity: true)
        job.runOnTwoThreads()
        var results = job.takeResults()
        for index in results.indices {
            switch results[index].take() {
            case .success(let prepared)?: body(prepared)
            case .failure(let error)?:
                throw SnapshotError(
                    .corrupted, "bad entity record (at byte \(error.offset) of the record): \(error.message)",
                    file: file, offset: offsets[index])
            case nil:
                throw SnapshotError(.corrupted, "record was not decoded", file: file, offset: offsets[index])
            }
        }
        offsets.removeAll(keepingCapacity: true)
    }
}

/// One batch: `records` is read-only; each thread writes only its own index range of `results`,
/// and the owner reads them only after joining the helper thread.
private final class Job<Prepared>: @unchecked Sendable {
    let records: [[UInt8]]
    let transform: @Sendable ([UInt8]) throws(ProtoFailure) -> Prepared
    var results: [Result<Prepared, ProtoFailure>?]

    init(records: [[UInt8]], transform: @escaping @Sendable ([UInt8]) throws(ProtoFailure) -> Prepared) {
        self.records = records
        self.transform = transform
        self.results = Array(repeating: nil, count: records.count)
    }

    private func run(_ range: Range<Int>) {
        results.withUnsafeMutableBufferPointer { out in
            for i in range {
                do throws(ProtoFailure) {
                    out[i] = .success(try transform(records[i]))
                } catch {
                    out[i] = .failure(error)
                }
            }
        }
    }

    func runSecondHalf() { run(records.count / 2..<records.count) }

    /// Moves the results out (after `runOnTwoThreads`), so they are not copied and released twice.
    func takeResults() -> [Result<Prepared, ProtoFailure>?] {
        var taken: [Result<Prepared, ProtoFailure>?] = []
        swap(&taken, &results)
        return taken
    }

    func runOnTwoThreads() {
        if records.count >= 1_024, let helper = PosixThread.start({ [self] in runSecondHalf() }) {
            run(0..<records.count / 2)
            helper.join()
        } else {
            run(0..<records.count)
        }
    }
}
