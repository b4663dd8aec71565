import EmulatorSupport

extension DatabaseNode {
    /// The node hash of the wire protocol (listen `h`, transaction compare-and-set, ETags):
    /// base64(SHA-1(text)) where a leaf's text is `[priority:<p>:]<type>:<value>` and an object's
    /// is `[priority:<p>:]` followed by `:<key>:<child hash>` for each non-empty child in
    /// priority-index order (priority, then key). Numbers are the 16 lowercase hex digits of the
    /// big-endian IEEE-754 double. The empty node hashes to `""`.
    ///
    /// ```swift
    /// DatabaseNode.leaf(.bool(true)).hash   // "E5z61QM0lN/U2WsOnusszCTkR8M="
    /// ```
    package var hash: String {
        if isEmpty { return "" }
        var text: [UInt8] = []
        if let priority {
            text.append(contentsOf: "priority:".utf8)
            Self.appendTyped(priority, to: &text)
            text.append(0x3A)
        }
        switch content {
        case .empty:
            return ""
        case .leaf(let v):
            Self.appendTyped(v, to: &text)
        case .children(let list):
            let ordered = list.sorted { a, b in
                let c = DatabaseOrder.comparePriorities(a.node.priority, b.node.priority)
                return c != 0 ? c < 0 : DatabaseOrder.compareKeys(a.key, b.key) < 0
            }
            for child in ordered {
                let h = child.node.hash
                if h.isEmpty { continue }
                text.append(0x3A)
                text.append(contentsOf: child.key.utf8)
                text.append(0x3A)
                text.append(contentsOf: h.utf8)
            }
        }
        return Base64.encode(SHA1.hash(text))
    }

    /// `boolean:true`, `number:<hex>`, `string:<s>`.
    private static func appendTyped(_ v: JSONValue, to text: inout [UInt8]) {
        switch v {
        case .bool(let b):
            text.append(contentsOf: (b ? "boolean:true" : "boolean:false").utf8)
        case .int(let i):
            appendNumber(Double(i), to: &text)
        case .double(let d):
            appendNumber(d, to: &text)
        case .string(let s):
            text.append(contentsOf: "string:".utf8)
            text.append(contentsOf: s.utf8)
        default:
            break
        }
    }

    private static func appendNumber(_ d: Double, to text: inout [UInt8]) {
        text.append(contentsOf: "number:".utf8)
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        let bits = d.bitPattern
        for k in stride(from: 60, through: 0, by: -4) { text.append(hex[Int(bits >> UInt64(k) & 0xF)]) }
    }
}
