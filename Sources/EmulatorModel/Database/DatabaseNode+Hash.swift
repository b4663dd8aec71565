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
        appendHashText(to: &text)
        return Base64.encode(SHA1.hash(text))
    }

    private func appendHashText(to text: inout [UInt8]) {
        if let priority {
            text.append(contentsOf: "priority:".utf8)
            Self.appendLeafText(priority, to: &text)
            text.append(UInt8(ascii: ":"))
        }
        switch content {
        case .empty: return
        case .children(let kids):
            // Children in priority-index order: priority, then key.
            let order = kids.indices.sorted { i, j in
                let c = DatabaseOrder.comparePriorities(kids.nodes[i].priority, kids.nodes[j].priority)
                return c != 0 ? c < 0 : DatabaseOrder.compareKeys(kids.keys[i], kids.keys[j]) < 0
            }
            for i in order {
                let childHash = kids.nodes[i].hash
                if childHash.isEmpty { continue }
                text.append(UInt8(ascii: ":"))
                text.append(contentsOf: kids.keys[i].utf8)
                text.append(UInt8(ascii: ":"))
                text.append(contentsOf: childHash.utf8)
            }
        default:
            Self.appendLeafText(leafValue ?? .null, to: &text)
        }
    }

    private static func appendLeafText(_ value: JSONValue, to text: inout [UInt8]) {
        switch value {
        case .bool(let v): text.append(contentsOf: (v ? "boolean:true" : "boolean:false").utf8)
        case .int(let v): appendNumber(Double(v), to: &text)
        case .double(let v): appendNumber(v, to: &text)
        case .string(let v):
            text.append(contentsOf: "string:".utf8)
            text.append(contentsOf: v.utf8)
        default: break
        }
    }

    private static func appendNumber(_ value: Double, to text: inout [UInt8]) {
        text.append(contentsOf: "number:".utf8)
        let bits = value.bitPattern
        let digits = Array("0123456789abcdef".utf8)
        for shift in stride(from: 60, through: 0, by: -4) { text.append(digits[Int((bits >> UInt64(shift)) & 15)]) }
    }
}
