/// One `FieldTransform` of a `Write`: a change the server computes from the field's current
/// value at commit time.
package struct FieldTransform: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case serverTimestamp
        case increment(Value)
        case maximum(Value)
        case minimum(Value)
        case appendMissingElements([Value])
        case removeAllFromArray([Value])
    }

    package var field: FieldPath
    package var kind: Kind

    package init(_ field: FieldPath, _ kind: Kind) {
        self.field = field
        self.kind = kind
    }
}

extension FieldTransform {
    /// The new value of the field given its current value, as production computes it (the
    /// server at commit, and the Swift client for its local view). `commitTime` is the server
    /// timestamp (µs).
    package func apply(to current: Value?, commitTime: Int64) -> Value {
        switch kind {
        case .serverTimestamp:
            return .timestamp(Timestamp(microseconds: commitTime))
        case .increment(let operand):
            guard let current, current.isPlainNumber else { return operand }
            switch (current, operand) {
            case (.integer(let a), .integer(let b)):
                let (s, o) = a.addingReportingOverflow(b)
                if o { return .integer(b > 0 ? .max : .min) }
                return .integer(s)
            default:
                return .double(Self.double(current) + Self.double(operand))
            }
        case .maximum(let operand), .minimum(let operand):
            guard let current, current.isPlainNumber else { return operand }
            if current.isNaN || operand.isNaN { return .double(.nan) }
            let c = Value.compare(operand, current)
            if case .maximum = kind { return c > 0 ? operand : current }
            return c < 0 ? operand : current
        case .appendMissingElements(let elements):
            var array = current?.arrayValue ?? []
            for e in elements where !array.contains(where: { $0.isEquivalent(e) }) { array.append(e) }
            return .array(array)
        case .removeAllFromArray(let elements):
            let array = current?.arrayValue ?? []
            return .array(array.filter { a in !elements.contains { a.isEquivalent($0) } })
        }
    }

    /// The value reported in `transformResults`: the new value, or null for array transforms.
    package func result(_ newValue: Value) -> Value {
        switch kind {
        case .appendMissingElements, .removeAllFromArray: .null
        default: newValue
        }
    }

    /// Checks operands: numeric transforms need a number; the field must not be `__name__`.
    package func validate() throws(EmulatorError) {
        if field.isDocumentID || field.segments.contains(where: ResourcePath.isReservedName) {
            throw .invalidArgument("Cannot transform the reserved field \(field.canonicalString).")
        }
        switch kind {
        case .increment(let v), .maximum(let v), .minimum(let v):
            guard v.isPlainNumber else {
                throw .invalidArgument("Invalid transform for field \(field.canonicalString): the operand must be an integer or a double.")
            }
        default: return
        }
    }

    private static func double(_ v: Value) -> Double {
        switch v {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: 0
        }
    }
}
