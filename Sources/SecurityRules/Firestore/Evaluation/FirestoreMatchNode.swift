/// A `match` block as evaluation walks it, built once per ruleset: a reference, so that descending
/// into a child copies one pointer, with the pattern and the allows' methods kept in plain arrays
/// so that matching a path segment or filtering allows by method touches no reference counts.
final class FirestoreMatchNode: Sendable {
    enum Kind: UInt8, Sendable {
        case literal, single, recursive
    }

    /// Per pattern segment: its kind, and its text (the literal, or the wildcard's name).
    let kinds: [Kind]
    let texts: [String]
    let allows: [FirestoreAllow]
    /// `allows[i].methods`.
    let allowMethods: [FirestoreMethodSet]
    let children: [FirestoreMatchNode]
    /// Every method an allow in this block or below names: a walk for other methods skips it.
    let methodsBelow: FirestoreMethodSet

    init(_ block: FirestoreMatch) {
        var kinds: [Kind] = []
        var texts: [String] = []
        for segment in block.pattern {
            switch segment {
            case .literal(let text):
                kinds.append(.literal)
                texts.append(text)
            case .single(let name):
                kinds.append(.single)
                texts.append(name)
            case .recursive(let name):
                kinds.append(.recursive)
                texts.append(name)
            }
        }
        self.kinds = kinds
        self.texts = texts
        self.allows = block.allows
        self.allowMethods = block.allows.map(\.methods)
        let children = block.children.map(FirestoreMatchNode.init)
        self.children = children
        var below = FirestoreMethodSet()
        for methods in allowMethods { below.formUnion(methods) }
        for child in children { below.formUnion(child.methodsBelow) }
        self.methodsBelow = below
    }

    /// Every literal segment in this block's pattern and below.
    var literals: Set<String> {
        var result = Set<String>()
        for i in kinds.indices where kinds[i] == .literal { result.insert(texts[i]) }
        for child in children { result.formUnion(child.literals) }
        return result
    }
}
