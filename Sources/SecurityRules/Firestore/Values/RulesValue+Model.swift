package import EmulatorModel

extension RulesValue {
    /// Converts a stored Firestore value: integer → int, double → float, timestamp, geoPoint →
    /// latlng, reference → path (`/databases/{d}/documents/...`), array → list, map → map.
    package init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .boolean(let b): self = .bool(b)
        case .integer(let i): self = .int(i)
        case .double(let d): self = .float(d)
        case .timestamp(let t): self = .timestamp(RulesTimestamp(t))
        case .string(let s): self = .string(s)
        case .bytes(let b): self = .bytes(b)
        case .reference(let name): self = .path(RulesPath(segments: FirestoreRuleset.relativeSegments(name)))
        case .geoPoint(let latitude, let longitude): self = .latlng(latitude: latitude, longitude: longitude)
        case .array(let items): self = .list(items.map(RulesValue.init))
        case .map(let map): self = .map(RulesValue.fields(map))
        }
    }

    /// A document's fields as a rules map.
    package static func fields(_ map: ValueMap) -> [String: RulesValue] {
        var result: [String: RulesValue] = [:]
        result.reserveCapacity(map.count)
        for field in map { result[field.name] = RulesValue(field.value) }
        return result
    }
}

extension RulesTimestamp {
    package init(_ timestamp: Timestamp) {
        self.init(seconds: timestamp.seconds, nanos: timestamp.nanos)
    }
}

extension RulesDocument {
    /// A stored document: `name` is its full or `databases/...` name, `fields` its data
    /// (converted only as rules read them).
    package init(name: String, fields: ValueMap) {
        self.init(segments: FirestoreRuleset.relativeSegments(name), fields: fields)
        self.nameText = name
    }
}
