/// One token of a `firestore.rules` file.
struct FirestoreToken: Sendable {
    enum Kind: Sendable, Equatable {
        case identifier(String)
        case int(Int64)
        case float(Double)
        case string(String)
        case bytes([UInt8])
        /// Punctuation and operators: `{ } ( ) [ ] ; , . : ? ! = == != < <= > >= && || + - * / %`.
        case symbol(String)
        case end
    }

    var kind: Kind
    var position: SourcePosition
    /// Byte offset of the token's first byte.
    var offset: Int

    var isEnd: Bool { kind == .end }

    func isSymbol(_ s: String) -> Bool { kind == .symbol(s) }

    func isIdentifier(_ s: String) -> Bool { kind == .identifier(s) }

    /// How the token reads in a diagnostic.
    var display: String {
        switch kind {
        case .identifier(let s): "'\(s)'"
        case .int(let i): "'\(i)'"
        case .float(let d): "'\(d)'"
        case .string: "string literal"
        case .bytes: "bytes literal"
        case .symbol(let s): "'\(s)'"
        case .end: "end of file"
        }
    }
}
