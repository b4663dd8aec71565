import EmulatorModel
import EmulatorSupport

/// Typed access to a JSON object of a request, accepting each member under its lowerCamelCase
/// name or its original snake_case name (proto3 JSON parsers must accept both).
struct JSONObject {
    let members: [JSONMember]
    let context: String

    init(_ json: JSONValue?, context: String) throws(EmulatorError) {
        switch json {
        case .object(let m)?: members = m
        case nil, .null?: members = []
        default: throw .invalidArgument("Invalid JSON payload received. Expected an object at '\(context)'.")
        }
        self.context = context
    }

    /// The member called `camel` or its snake_case form.
    subscript(_ camel: String) -> JSONValue? {
        if let v = find(camel) { return v }
        // Only names with capitals have a distinct snake_case form.
        guard camel.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return nil }
        return find(Self.snakeCase(camel))
    }

    private func find(_ name: String) -> JSONValue? {
        for m in members where m.name.utf8.count == name.utf8.count && m.name.utf8.elementsEqual(name.utf8) {
            if case .null = m.value { return nil }
            return m.value
        }
        return nil
    }

    func has(_ camel: String) -> Bool { self[camel] != nil }

    func object(_ camel: String) throws(EmulatorError) -> JSONObject? {
        guard let v = self[camel] else { return nil }
        return try JSONObject(v, context: context + "." + camel)
    }

    func string(_ camel: String) throws(EmulatorError) -> String? {
        guard let v = self[camel] else { return nil }
        guard case .string(let s) = v else { throw bad(camel, "expected a string") }
        return s
    }

    func bool(_ camel: String) throws(EmulatorError) -> Bool? {
        switch self[camel] {
        case nil: return nil
        case .bool(let b)?: return b
        case .string(let s)? where s == "true" || s == "false": return s == "true"
        default: throw bad(camel, "expected a boolean")
        }
    }

    /// An integer given as a number, a numeric string, or a wrapper `{"value": n}`.
    func int(_ camel: String) throws(EmulatorError) -> Int64? {
        guard let v = self[camel] else { return nil }
        guard let i = try Self.integer(v) else { throw bad(camel, "expected an integer") }
        return i
    }

    static func integer(_ v: JSONValue) throws(EmulatorError) -> Int64? {
        switch v {
        case .int(let i): return i
        case .double(let d) where d == d.rounded() && abs(d) < 9.2e18: return Int64(d)
        case .string(let s): return Int64(s)
        case .object:
            let o = try JSONObject(v, context: "value")
            return try o.int("value")
        default: return nil
        }
    }

    func array(_ camel: String) throws(EmulatorError) -> [JSONValue] {
        switch self[camel] {
        case nil: return []
        case .array(let a)?: return a
        default: throw bad(camel, "expected an array")
        }
    }

    /// Base64 bytes (either alphabet, padding optional).
    func bytes(_ camel: String) throws(EmulatorError) -> [UInt8]? {
        guard let s = try string(camel) else { return nil }
        guard let b = Base64.decode(s, alphabet: nil) else { throw bad(camel, "expected base64") }
        return b
    }

    /// An RFC 3339 timestamp, as microseconds.
    func timestamp(_ camel: String) throws(EmulatorError) -> Int64? {
        guard let s = try string(camel) else { return nil }
        do { return try Timestamp(rfc3339: s).microseconds } catch { throw bad(camel, "invalid timestamp \"\(s)\"") }
    }

    func bad(_ camel: String, _ what: String) -> EmulatorError {
        .invalidArgument("Invalid JSON payload received. Invalid value at '\(context).\(camel)': \(what).")
    }

    /// `structuredQuery` → `structured_query`.
    static func snakeCase(_ camel: String) -> String {
        var out: [UInt8] = []
        for c in camel.utf8 {
            if c >= 0x41 && c <= 0x5A {
                out.append(0x5F)
                out.append(c + 0x20)
            } else {
                out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `page_size` → `pageSize` (query parameters may use either form).
    static func camelCase(_ snake: String) -> String {
        var out: [UInt8] = []
        var upper = false
        for c in snake.utf8 {
            if c == 0x5F { upper = true; continue }
            out.append(upper && c >= 0x61 && c <= 0x7A ? c - 0x20 : c)
            upper = false
        }
        return String(decoding: out, as: UTF8.self)
    }
}
