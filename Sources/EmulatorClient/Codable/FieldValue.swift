import EmulatorModel

/// A sentinel written in place of a field value: delete it, or let the server transform it.
///
/// ```swift
/// try await ref.updateData(["visits": FieldValue.increment(Int64(1)), "old": FieldValue.delete()])
/// ```
public struct FieldValue: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case delete
        case serverTimestamp
        case arrayUnion([FieldData])
        case arrayRemove([FieldData])
        case increment(FieldData)
        case minimum(FieldData)
        case maximum(FieldData)
    }

    let kind: Kind

    public static func delete() -> FieldValue { FieldValue(kind: .delete) }
    public static func serverTimestamp() -> FieldValue { FieldValue(kind: .serverTimestamp) }
    /// Adds each element not already present (array transforms are not allowed inside arrays).
    public static func arrayUnion(_ elements: [Any]) -> FieldValue {
        FieldValue(kind: .arrayUnion(elements.map { (try? FieldData(any: $0)) ?? .value(.null) }))
    }
    /// Removes every instance of each element.
    public static func arrayRemove(_ elements: [Any]) -> FieldValue {
        FieldValue(kind: .arrayRemove(elements.map { (try? FieldData(any: $0)) ?? .value(.null) }))
    }
    public static func increment(_ n: Int64) -> FieldValue { FieldValue(kind: .increment(.value(.integer(n)))) }
    public static func increment(_ n: Double) -> FieldValue { FieldValue(kind: .increment(.value(.double(n)))) }
    public static func minimum(_ n: Int64) -> FieldValue { FieldValue(kind: .minimum(.value(.integer(n)))) }
    public static func minimum(_ n: Double) -> FieldValue { FieldValue(kind: .minimum(.value(.double(n)))) }
    public static func maximum(_ n: Int64) -> FieldValue { FieldValue(kind: .maximum(.value(.integer(n)))) }
    public static func maximum(_ n: Double) -> FieldValue { FieldValue(kind: .maximum(.value(.double(n)))) }
}
