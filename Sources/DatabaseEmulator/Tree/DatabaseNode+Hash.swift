import EmulatorModel
import EmulatorHTTP
import EmulatorSupport

extension DatabaseNode {
    /// The node hash of the SDKs (base64 SHA-1 of a canonical text; "" for null). Used for ETags
    /// and transaction compare-and-set.
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

    /// The ETag REST returns: the hash, or `null_etag` for a null location.
    package var etag: String { isEmpty ? "null_etag" : hash }

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
            Self.appendLeafText(leafJSON, to: &text)
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
