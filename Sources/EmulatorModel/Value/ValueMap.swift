/// The fields of a document or map value: unique names kept sorted by their UTF-8 bytes.
///
/// Lookup is a binary search over the bytes, so canonically equivalent but distinct names
/// (`"é"` and `"e\u{301}"`) are distinct fields. Iteration is in key order, which is also the
/// order Firestore returns map keys in.
///
/// ```swift
/// var fields = ValueMap()
/// fields["b"] = .integer(2)
/// fields["a"] = .integer(1)
/// fields.map(\.name)   // ["a", "b"]
/// ```
package struct ValueMap: Sendable, Hashable, RandomAccessCollection {
    /// One named field.
    package struct Field: Sendable, Hashable {
        package var name: String
        package var value: Value

        package init(_ name: String, _ value: Value) {
            self.name = name
            self.value = value
        }

        package static func == (a: Field, b: Field) -> Bool {
            UTF8Order.equal(a.name, b.name) && a.value == b.value
        }

        package func hash(into hasher: inout Hasher) {
            Value.hashUTF8(name, into: &hasher)
            hasher.combine(value)
        }
    }

    /// The fields, sorted by UTF-8 bytes of their names, names unique.
    package private(set) var fields: [Field]

    package init() { fields = [] }

    /// Builds a map from pairs in any order; for duplicate names the last pair wins.
    package init<S: Sequence>(_ pairs: S) where S.Element == (String, Value) {
        fields = []
        for (name, value) in pairs { self[name] = value }
    }

    /// Sorts `fields` by name bytes in O(n log n); for duplicate names the later field wins.
    package init(unsortedFields: [Field]) {
        if unsortedFields.count <= 16 {
            // Documents usually have a handful of fields: a stable insertion sort in place beats
            // sorting (offset, field) pairs.
            var sorted = unsortedFields
            var i = 1
            while i < sorted.count {
                var j = i
                while j > 0 && UTF8Order.compare(sorted[j - 1].name, sorted[j].name) > 0 {
                    sorted.swapAt(j - 1, j)
                    j -= 1
                }
                i += 1
            }
            var k = 1
            var unique = true
            while k < sorted.count {
                if UTF8Order.equal(sorted[k - 1].name, sorted[k].name) { unique = false; break }
                k += 1
            }
            if unique {
                fields = sorted
                return
            }
        }
        var indexed = Array(unsortedFields.enumerated())
        indexed.sort { a, b in
            let c = UTF8Order.compare(a.element.name, b.element.name)
            return c != 0 ? c < 0 : a.offset < b.offset
        }
        var out: [Field] = []
        out.reserveCapacity(indexed.count)
        for (_, field) in indexed {
            if let last = out.last, UTF8Order.equal(last.name, field.name) {
                out[out.count - 1] = field
            } else {
                out.append(field)
            }
        }
        fields = out
    }

    /// Adopts fields that are already sorted and unique (as a decoder produces them).
    /// Returns nil if they are not strictly ascending by UTF-8 bytes.
    package init?(sortedFields: [Field]) {
        var i = 1
        while i < sortedFields.count {
            if UTF8Order.compare(sortedFields[i - 1].name, sortedFields[i].name) >= 0 { return nil }
            i += 1
        }
        fields = sortedFields
    }

    /// Adopts fields the caller has sorted strictly ascending by UTF-8 bytes (unchecked: a decoder
    /// that compared the raw bytes already).
    package init(uncheckedSortedFields: [Field]) {
        fields = uncheckedSortedFields
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { fields.count }
    package subscript(position: Int) -> Field { fields[position] }

    /// Binary search: the index of `name` if present, else where it would be inserted.
    package func search(_ name: String) -> (found: Bool, index: Int) {
        var low = 0
        var high = fields.count
        while low < high {
            let mid = (low + high) >> 1
            let c = UTF8Order.compare(fields[mid].name, name)
            if c == 0 { return (true, mid) }
            if c < 0 { low = mid + 1 } else { high = mid }
        }
        return (false, low)
    }

    /// The value of the field called `name` (by UTF-8 bytes); assigning nil removes it.
    package subscript(name: String) -> Value? {
        get {
            let r = search(name)
            return r.found ? fields[r.index].value : nil
        }
        set {
            let r = search(name)
            switch (r.found, newValue) {
            case (true, let value?): fields[r.index].value = value
            case (true, nil): fields.remove(at: r.index)
            case (false, let value?): fields.insert(Field(name, value), at: r.index)
            case (false, nil): break
            }
        }
    }

    /// Removes the field called `name`, returning its value.
    @discardableResult
    package mutating func removeValue(forKey name: String) -> Value? {
        let r = search(name)
        guard r.found else { return nil }
        return fields.remove(at: r.index).value
    }

    /// Mutates the value of `name` in place (no copy of the nested storage when uniquely referenced).
    package mutating func modify<R>(_ name: String, _ body: (inout Value?) throws -> R) rethrows -> R {
        let r = search(name)
        if r.found {
            var value: Value? = fields[r.index].value
            fields[r.index].value = .null  // drop our reference so `value` is unique
            defer {
                if let value { fields[r.index].value = value } else { fields.remove(at: r.index) }
            }
            return try body(&value)
        }
        var value: Value? = nil
        defer { if let value { fields.insert(Field(name, value), at: r.index) } }
        return try body(&value)
    }

    /// True when this is a vector value: a map whose `__type__` is the string `"__vector__"`
    /// (the elements are under `value`).
    package var isVector: Bool {
        guard case .string(let t)? = self["__type__"] else { return false }
        return UTF8Order.equal(t, "__vector__")
    }

    /// The elements of a vector value (empty if `value` is missing or not an array); nil if this
    /// map is not a vector.
    package var vectorElements: [Value]? {
        guard isVector else { return nil }
        if case .array(let elements)? = self["value"] { return elements }
        return []
    }
}

extension ValueMap: ExpressibleByDictionaryLiteral {
    package init(dictionaryLiteral elements: (String, Value)...) { self.init(elements) }
}
