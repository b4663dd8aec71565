import EmulatorModel

extension DocumentName {
    /// The common document name read straight from its bytes:
    /// `projects/{p}/databases/{d}/documents/{c}/{id}[/…]` in printable ASCII, an even number of
    /// segments below `documents`, none empty, `.`, `..`, longer than allowed or starting with `__`
    /// (reserved and numeric ids), the name within its limit. Nil for anything else, which
    /// ``DocumentName/document(_:)`` parses (and whose errors it reports); where this gives a name,
    /// it is the one that gives. Every gRPC GetDocument names its document, and splitting the name
    /// into strings to compare the fixed words cost more than the rest of reading the request.
    static func plainDocument(_ name: String) -> DocumentName? {
        name.utf8.withContiguousStorageIfAvailable(plainDocument(bytes:)) ?? nil
    }

    private static func plainDocument(bytes: UnsafeBufferPointer<UInt8>) -> DocumentName? {
        guard bytes.count <= maxNameBytes else { return nil }
        var project = ""
        var database = ""
        var segments: [String] = []
        var index = 0
        var start = 0
        var i = 0
        while true {
            let atEnd = i == bytes.count
            let byte = atEnd ? 0x2F : bytes[i]
            guard byte == 0x2F else {
                // Printable ASCII only: every byte a whole character, nothing to validate.
                guard byte > 0x20, byte < 0x7F else { return nil }
                i += 1
                continue
            }
            let segment = UnsafeBufferPointer(rebasing: bytes[start..<i])
            guard !segment.isEmpty else { return nil }
            switch index {
            case 0: guard equals(segment, "projects") else { return nil }
            case 1: project = String(decoding: segment, as: UTF8.self)
            case 2: guard equals(segment, "databases") else { return nil }
            case 3: database = String(decoding: segment, as: UTF8.self)
            case 4: guard equals(segment, "documents") else { return nil }
            default:
                guard segment.count <= ResourcePath.maxSegmentBytes,
                    segment.count > 2 || segment.contains(where: { $0 != 0x2E }),
                    segment.count < 2 || segment[0] != 0x5F || segment[1] != 0x5F
                else { return nil }
                if segments.isEmpty { segments.reserveCapacity(4) }
                segments.append(String(decoding: segment, as: UTF8.self))
            }
            index += 1
            if atEnd { break }
            i += 1
            start = i
        }
        guard !segments.isEmpty, segments.count % 2 == 0 else { return nil }
        return DocumentName(projectID: project, databaseID: database, path: ResourcePath(segments: segments))
    }

    /// Whether `bytes` are exactly `word`'s.
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        for i in 0..<bytes.count where bytes[i] != word.utf8Start[i] { return false }
        return true
    }
}
