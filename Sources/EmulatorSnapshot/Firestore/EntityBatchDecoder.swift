import Glibc

/// Decodes batches of entity records on two threads (the decode is CPU-bound and records are
/// independent), keeping record order and reporting the first bad record.
struct EntityBatchDecoder {
    /// Records buffered with their file offsets, waiting to be decoded.
    var records: [[UInt8]] = []
    var offsets: [Int] = []
    let batchSize = 16_384

    var isFull: Bool { records.count >= batchSize }

    mutating func append(_ record: [UInt8], offset: Int) {
        records.append(record)
        offsets.append(offset)
    }

    /// Decodes what is buffered, calls `body` in record order, and empties the buffer.
    mutating func flush(file: String, _ body: (FirestoreExportDocument) -> Void) throws(SnapshotError) {
        guard !records.isEmpty else { return }
        let results = Self.decodeInParallel(records)
        for (index, result) in results.enumerated() {
            switch result {
            case .success(let document): body(document)
            case .failure(let error):
                throw SnapshotError(
                    .corrupted, "bad entity record (at byte \(error.offset) of the record): \(error.message)",
                    file: file, offset: offsets[index])
            }
        }
        records.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
    }

    private final class Job: @unchecked Sendable {
        // @unchecked Sendable: `records` is read-only; each thread writes only its own index
        // range of `results`, and the owner reads them only after joining the thread.
        let records: [[UInt8]]
        var results: [Result<FirestoreExportDocument, ProtoReader.Failure>?]
        init(records: [[UInt8]]) {
            self.records = records
            self.results = Array(repeating: nil, count: records.count)
        }

        func run(_ range: Range<Int>) {
            results.withUnsafeMutableBufferPointer { out in
                for i in range {
                    do throws(ProtoReader.Failure) { out[i] = .success(try EntityProto.decode(records[i])) } catch {
                        out[i] = .failure(error)
                    }
                }
            }
        }
    }

    static func decodeInParallel(_ records: [[UInt8]]) -> [Result<FirestoreExportDocument, ProtoReader.Failure>] {
        let job = Job(records: records)
        let half = records.count / 2
        var thread = pthread_t()
        let started = records.count >= 1_024 && pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let job = Unmanaged<Job>.fromOpaque(raw).takeRetainedValue()
            job.run(job.records.count / 2..<job.records.count)
            return nil
        }, Unmanaged.passRetained(job).toOpaque()) == 0
        if started {
            job.run(0..<half)
            pthread_join(thread, nil)
        } else {
            job.run(0..<records.count)
        }
        return job.results.map { $0 ?? .failure(ProtoReader.Failure(offset: 0, message: "not decoded")) }
    }
}
