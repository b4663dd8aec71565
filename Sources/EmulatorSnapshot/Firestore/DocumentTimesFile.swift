import EmulatorProtobuf
/// The create and update times of the documents of one `output-N` file, kept beside it as
/// `output-N.emulators-times`. The official format has no place for them (an `EntityProto`
/// carries a key and properties only), and the official importer reads only the files the
/// metadata points at, so the side file is invisible to it: our exports still open there
/// (documents get the import time, as officially), and we restore the original times.
///
/// Format: a LevelDB log. The first record is `emulators-document-times-1`, then varints: the
/// byte size of the `output-N` file it describes and the document count. Then records of
/// varint pairs (create time, update time; microseconds), one pair per document, in file order.
/// A side file whose size or count does not match its `output-N` (the entities were replaced by
/// another tool), or that is damaged, is ignored with a warning naming it: the documents then
/// get the import time.
package enum DocumentTimesFile {
    package static let suffix = ".emulators-times"
    static let magic = Array("emulators-document-times-1".utf8)

    /// Collects the pairs while an export is written.
    struct Builder {
        private var records: [[UInt8]] = []
        private var pairs = ProtoWriter()
        private(set) var count = 0
        private(set) var hasTimes = false

        mutating func add(createTime: Int64, updateTime: Int64) {
            pairs.varint(UInt64(bitPattern: createTime))
            pairs.varint(UInt64(bitPattern: updateTime))
            count += 1
            if updateTime != 0 { hasTimes = true }
            if pairs.bytes.count >= 64 << 10 {
                records.append(pairs.bytes)
                pairs.bytes.removeAll(keepingCapacity: true)
            }
        }

        func encoded(outputBytes: Int) -> [UInt8] {
            var header = ProtoWriter()
            header.bytes = DocumentTimesFile.magic
            header.varint(UInt64(outputBytes))
            header.varint(UInt64(count))
            var file = LevelDBLogWriter()
            file.append(header.bytes)
            for record in records { file.append(record) }
            if !pairs.bytes.isEmpty { file.append(pairs.bytes) }
            return file.drain()
        }
    }

    /// What the side file of one `output-N` gives.
    enum Lookup {
        /// There is none (an official or production export).
        case absent
        /// There is one, but it does not describe this `output-N` or is damaged: why, for a warning.
        case ignored(String)
        /// (create, update) pairs, one per document in file order.
        case times([(Int64, Int64)])
    }

    /// The times for `outputFile`, from its side file if there is a usable one.
    static func read(for outputFile: String, fileSystem: SnapshotFileSystem) -> Lookup {
        let path = outputFile + suffix
        guard fileSystem.exists(path) else { return .absent }
        let name = SnapshotFileSystem.split(outputFile).name
        guard let size = fileSystem.fileSize(outputFile), let bytes = try? fileSystem.read(path) else {
            return .ignored("it cannot be read")
        }
        var log = LevelDBLogReader(bytes: bytes, file: path)
        guard let header = try? log.next(), header.starts(with: magic) else {
            return .ignored("it is not an emulators document-times file")
        }
        var position = magic.count
        guard let recordedSize = varint(header, &position), let count = varint(header, &position),
            count <= UInt64(bytes.count)
        else { return .ignored("its header is damaged") }
        guard recordedSize == UInt64(size) else {
            return .ignored("it was written for \(name) at \(recordedSize) bytes, but \(name) now has \(size) (rewritten by another tool?)")
        }
        var pairs: [(Int64, Int64)] = []
        pairs.reserveCapacity(Int(count))
        while true {
            let next: [UInt8]?
            do throws(SnapshotError) { next = try log.next() } catch { return .ignored("it is damaged (\(error.message))") }
            guard let record = next else { break }
            var at = 0
            while at < record.count {
                guard let created = varint(record, &at), let updated = varint(record, &at) else {
                    return .ignored("a record is damaged")
                }
                pairs.append((Int64(bitPattern: created), Int64(bitPattern: updated)))
            }
        }
        guard pairs.count == Int(count) else {
            return .ignored("it holds \(pairs.count) documents' times but says \(count)")
        }
        return .times(pairs)
    }

    private static func varint(_ bytes: [UInt8], _ position: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count && shift < 64 {
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}
