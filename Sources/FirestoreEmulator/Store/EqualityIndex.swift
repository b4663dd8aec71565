import EmulatorModel

/// Which documents of one collection hold which value (by order-preserving key) in one field, at
/// head. Built on first use by a query shape, then kept up to date by every commit.
struct EqualityIndex: Sendable {
    struct ID: Sendable, Hashable {
        var collection: [UInt8]
        var field: [UInt8]
    }

    let field: FieldPath
    /// Value key → ids of documents whose field has that value.
    private(set) var entries: [[UInt8]: Set<[UInt8]>] = [:]
    /// Document id → its current value key.
    private var reverse: [[UInt8]: [UInt8]] = [:]

    init(field: FieldPath) { self.field = field }

    mutating func build(from collection: DatabaseState.Collection) throws(EmulatorError) {
        for (docKey, history) in collection.documents {
            guard let bytes = history.live(at: .max)?.bytes else { continue }
            update(docKey: docKey, fields: try ValueCodec.decode(bytes))
        }
    }

    mutating func update(docKey: [UInt8], fields: ValueMap?) {
        if let old = reverse.removeValue(forKey: docKey) {
            entries[old]?.remove(docKey)
            if entries[old]?.isEmpty == true { entries[old] = nil }
        }
        guard let value = fields?.value(at: field) else { return }
        let key = IndexKey.key(value)
        entries[key, default: []].insert(docKey)
        reverse[docKey] = key
    }
}
