import EmulatorHTTP
import EmulatorModel
import EmulatorSupport
import Glibc

/// A parsed `/v1/projects/{p}/databases/{d}/documents[/{path}][:{method}]` request path.
struct RESTPath {
    var database: DatabaseID
    /// The path below `documents` (validated segments).
    var path: ResourcePath
    /// The custom method after the last `:` (`runQuery`, `commit`, …), when it is a known one.
    var method: String?
    /// Whether ``plain(_:allowMethod:)`` read the path: then the request's path after `/v1/` is
    /// `name.name` byte for byte (plain ids, no escapes, no method), and an answer can copy it
    /// instead of assembling the name from its parts.
    var isPlain = false

    static let methods: Set<String> = [
        "batchGet", "beginTransaction", "commit", "rollback", "runQuery", "runAggregationQuery", "partitionQuery",
        "listCollectionIds", "batchWrite", "listen", "write", "executePipeline", "listDocuments",
    ]

    /// Parses the segments after the version prefix. `allowMethod` is false for GET/PATCH/DELETE,
    /// where a `:` belongs to the document id.
    init(segments raw: [Substring], allowMethod: Bool) throws(EmulatorError) {
        var segments: [String] = []
        segments.reserveCapacity(raw.count)
        for s in raw {
            guard let d = PercentEncoding.decode(s) else { throw .invalidArgument("Invalid percent-encoding in the request path.") }
            segments.append(d)
        }
        if allowMethod, var last = segments.last, let colon = last.utf8.lastIndex(of: 0x3A) {
            let name = String(last[last.index(after: colon)...])
            if Self.methods.contains(name) {
                method = name
                last = String(last[..<colon])
                segments[segments.count - 1] = last
            }
        }
        // The joined name is built only for an error message.
        func full() -> String { segments.joined(separator: "/") }
        // `utf8Equal` compares the bytes in place; `elementsEqual` on the views walks them generically.
        guard segments.count >= 5, utf8Equal(segments[0], "projects"),
            utf8Equal(segments[2], "databases"), utf8Equal(segments[4], "documents"),
            !segments[1].isEmpty, !segments[3].isEmpty
        else {
            throw .invalidArgument("Invalid resource name: \"\(full())\"; must match projects/{project_id}/databases/{database_id}/documents/{document_path}.")
        }
        database = DatabaseID(project: segments[1], database: segments[3])
        var path: [String] = []
        path.reserveCapacity(segments.count - 5)
        var fullCount = segments.count - 1
        for (i, s) in segments.enumerated() {
            fullCount += s.utf8.count
            guard i >= 5 else { continue }
            do { try ResourcePath.validateSegment(s) } catch {
                throw .invalidArgument("Invalid resource name \"\(full())\": \(error.message)")
            }
            path.append(s)
        }
        self.path = ResourcePath(segments: path)
        if fullCount > DocumentName.maxNameBytes {
            throw .invalidArgument("Document name \"\(full())\" is longer than \(DocumentName.maxNameBytes) bytes.")
        }
    }

    /// Parses a request's path, `/v1/` then the segments: the plain form straight from its bytes
    /// (``plain(_:allowMethod:)``), anything else by ``general(_:allowMethod:)``.
    static func parse(_ rawPath: Substring, allowMethod: Bool) throws(EmulatorError) -> RESTPath {
        if let plain = plain(rawPath, allowMethod: allowMethod) { return plain }
        return try general(rawPath, allowMethod: allowMethod)
    }

    /// Any request path: segments split on the byte (a Character split would run grapheme breaking
    /// over the path), each percent-decoded, a trailing `/` ignored.
    static func general(_ rawPath: Substring, allowMethod: Bool) throws(EmulatorError) -> RESTPath {
        guard rawPath.utf8.starts(with: "/v1/".utf8) else {
            throw .notFound("Unknown path \(rawPath).")
        }
        var segments = split(rawPath[rawPath.utf8.index(rawPath.startIndex, offsetBy: 4)...])
        if segments.last?.isEmpty == true && segments.count > 1 { segments.removeLast() }
        return try RESTPath(segments: segments, allowMethod: allowMethod)
    }

    /// The common request path parsed straight from its bytes: `/v1/projects/{p}/databases/{d}/documents[/…]`
    /// with no `%` escape, no empty segment, no `:` in the last segment when a custom method may
    /// follow, every segment valid and the name within its limit. `nil` for anything else, which
    /// ``init(segments:allowMethod:)`` parses (and whose errors it reports). Strings are made only
    /// for the project, the database and the document path, and the fixed words compared in place.
    static func plain(_ rawPath: Substring, allowMethod: Bool) -> RESTPath? {
        rawPath.utf8.withContiguousStorageIfAvailable { plain($0, allowMethod: allowMethod) } ?? nil
    }

    private static func plain(_ bytes: UnsafeBufferPointer<UInt8>, allowMethod: Bool) -> RESTPath? {
        let prefix = "/v1/".utf8.count
        // The name after `/v1/` is at most `maxNameBytes` long (the general parser's `fullCount`).
        guard bytes.count > prefix, bytes.count - prefix <= DocumentName.maxNameBytes,
            bytes[0] == 0x2F, bytes[1] == UInt8(ascii: "v"), bytes[2] == UInt8(ascii: "1"), bytes[3] == 0x2F,
            let base = bytes.baseAddress
        else { return nil }
        // The bytes are searched by memchr (a loop here costs several instructions a byte): an
        // escape anywhere leaves the path to the general reading, then the segments end at `/`.
        if memchr(base, Int32(UInt8(ascii: "%")), bytes.count) != nil { return nil }
        var project = ""
        var database = ""
        var path: [String] = []
        var index = 0
        var start = prefix
        while true {
            let slash = memchr(base + start, 0x2F, bytes.count - start)
            let i = slash.map { UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0)) } ?? bytes.count
            let atEnd = slash == nil
            guard start < i else { return nil }  // an empty segment
            let segment = UnsafeBufferPointer(rebasing: bytes[start..<i])
            switch index {
            case 0: guard Self.equals(segment, "projects") else { return nil }
            case 1: project = String(decoding: segment, as: UTF8.self)
            case 2: guard Self.equals(segment, "databases") else { return nil }
            case 3: database = String(decoding: segment, as: UTF8.self)
            case 4: guard Self.equals(segment, "documents") else { return nil }
            default:
                if atEnd, allowMethod, segment.contains(0x3A) { return nil }
                let s = String(decoding: segment, as: UTF8.self)
                do { try ResourcePath.validateSegment(s) } catch { return nil }
                if path.isEmpty { path.reserveCapacity(4) }
                path.append(s)
            }
            index += 1
            if atEnd { break }
            start = i + 1
        }
        guard index >= 5 else { return nil }
        return RESTPath(database: DatabaseID(project: project, database: database), path: ResourcePath(segments: path))
    }

    /// Whether `bytes` are exactly `word`'s.
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        for i in 0..<bytes.count where bytes[i] != word.utf8Start[i] { return false }
        return true
    }

    private init(database: DatabaseID, path: ResourcePath) {
        self.database = database
        self.path = path
        method = nil
        isPlain = true
    }

    /// `text` split at every `/` byte, empty segments kept (as `split(separator:
    /// omittingEmptySubsequences: false)` would, without breaking the text into Characters).
    static func split(_ text: Substring) -> [Substring] {
        var result: [Substring] = []
        result.reserveCapacity(8)
        var start = text.startIndex
        let utf8 = text.utf8
        // The slashes found in the bytes in place (a generic search of the view costs tens of
        // instructions a byte); a native string's UTF-8 index moves by an offset in O(1).
        let searched: Void? = utf8.withContiguousStorageIfAvailable { bytes in
            var after = 0
            for offset in bytes.indices where bytes[offset] == UInt8(ascii: "/") {
                let slash = utf8.index(start, offsetBy: offset - after)
                result.append(text[start..<slash])
                start = utf8.index(after: slash)
                after = offset + 1
            }
        }
        if searched != nil {
            result.append(text[start...])
            return result
        }
        while let slash = utf8[start...].firstIndex(of: UInt8(ascii: "/")) {
            result.append(text[start..<slash])
            start = utf8.index(after: slash)
        }
        result.append(text[start...])
        return result
    }

    /// The request path's name as spelt (`rawPath` after `/v1/`) when ``isPlain``.
    static func spelledName(_ rawPath: Substring) -> Substring {
        rawPath.dropFirstBytes("/v1/".utf8.count)
    }

    var name: DocumentName { DocumentName(projectID: database.project, databaseID: database.database, path: path) }
}

extension Substring {
    /// This text without its first `count` UTF-8 bytes (ASCII ones: the cut is a character
    /// boundary).
    func dropFirstBytes(_ count: Int) -> Substring {
        self[utf8.index(startIndex, offsetBy: count)...]
    }
}
