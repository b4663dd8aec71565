import EmulatorModel
import EmulatorSupport

/// Typed access to a JSON object of a request, checked against its ``RESTMessage``: each member
/// is accepted under its lowerCamelCase name or its original snake_case name (proto3 JSON parsers
/// must accept both), and any other member is rejected as production rejects it:
///
/// ```
/// Invalid JSON payload received. Unknown name "foo" at 'writes[0].update': Cannot find field.
/// ```
///
/// `context` is the object's proto path in production's form (`writes[0].update_mask`; empty for
/// the request root), used in every error about the object.
struct JSONObject {
    let members: [JSONMember]
    let message: RESTMessage
    // The path is kept in parts and only rendered for an error: `outer` (rendered), then the
    // parent's member name and index, then this object's (an index of -1 means none). Building
    // `writes[17].update` for every write of a commit would cost more than decoding the write.
    private let outer: String
    private let parentName: String
    private let parentIndex: Int
    private let name: String
    private let index: Int

    /// The object's proto path: `writes[0].update`; empty for the request root.
    var context: String { Self.join(Self.join(outer, parentName, parentIndex), name, index) }

    private static func join(_ base: String, _ name: String, _ index: Int) -> String {
        if name.isEmpty && index < 0 { return base }
        var out = base
        if !name.isEmpty {
            if !out.isEmpty { out += "." }
            out += name
        }
        if index >= 0 { out += "[\(index)]" }
        return out
    }

    init(_ json: JSONValue?, context: String, message: RESTMessage) throws(EmulatorError) {
        try self.init(json, outer: context, parentName: "", parentIndex: -1, name: "", index: -1, message: message)
    }

    /// The object at member `camel` (element `index` when repeated) of `parent`.
    private init(_ json: JSONValue?, in parent: JSONObject, _ camel: String, index: Int, message: RESTMessage) throws(EmulatorError) {
        try self.init(
            json, outer: Self.join(parent.outer, parent.parentName, parent.parentIndex), parentName: parent.name,
            parentIndex: parent.index, name: parent.snake(camel), index: index, message: message)
    }

    private init(
        _ json: JSONValue?, outer: String, parentName: String, parentIndex: Int, name: String, index: Int,
        message: RESTMessage
    ) throws(EmulatorError) {
        self.outer = outer
        self.parentName = parentName
        self.parentIndex = parentIndex
        self.name = name
        self.index = index
        self.message = message
        switch json {
        case .object(let m)?: members = m
        case nil, .null?: members = []
        case .array?:
            members = []
            let path = context
            throw .invalidArgument(
                "Invalid JSON payload received. Unknown name \"\(Self.lastName(path))\"\(Self.at(Self.parentPath(path))): Proto field is not repeating, cannot start list.")
        case let other?:
            members = []
            throw .invalidArgument("Invalid value at '\(context)' (\(message.typeURL)), \(JSONWriter.encodeToString(other))")
        }
        for m in members where !message.accepts(m.name) {
            throw .invalidArgument("Invalid JSON payload received. Unknown name \"\(m.name)\"\(Self.at(context)): Cannot find field.")
        }
    }

    /// ` at 'path'`, or nothing for the request root.
    static func at(_ path: String) -> String { path.isEmpty ? "" : " at '\(path)'" }

    private static func parentPath(_ path: String) -> String {
        guard let dot = path.utf8.lastIndex(of: 0x2E) else { return "" }
        return String(path[..<dot])
    }

    private static func lastName(_ path: String) -> String {
        var name = Substring(path)
        if let dot = path.utf8.lastIndex(of: 0x2E) { name = path[path.index(after: dot)...] }
        if let bracket = name.firstIndex(of: "[") { name = name[..<bracket] }
        return String(name)
    }

    /// The member called `camel` or its snake_case form (`null` counts as absent).
    subscript(_ camel: String) -> JSONValue? {
        // Open messages have no field list: derive the snake_case name (only names with capitals
        // have a distinct one).
        let snake =
            message.index(of: camel).map { message.snakeFields[$0] }
            ?? (message.isOpen && camel.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? Self.snakeCase(camel) : nil)
        let n = camel.utf8.count
        for m in members {
            let k = m.name.utf8.count
            guard (k == n && m.name == camel) || (snake != nil && k == snake?.utf8.count && m.name == snake) else { continue }
            if case .null = m.value { return nil }
            return m.value
        }
        return nil
    }

    func has(_ camel: String) -> Bool { self[camel] != nil }

    /// The proto (snake_case) name of member `camel`.
    func snake(_ camel: String) -> String {
        message.index(of: camel).map { message.snakeFields[$0] } ?? Self.snakeCase(camel)
    }

    /// The proto path of member `camel`: `writes[0].update_mask`.
    func path(_ camel: String) -> String { Self.join(context, snake(camel), -1) }

    func object(_ camel: String, _ message: RESTMessage) throws(EmulatorError) -> JSONObject? {
        guard let v = self[camel] else { return nil }
        return try JSONObject(v, in: self, camel, index: -1, message: message)
    }

    /// The elements of repeated member `camel` checked as `message` objects.
    func objects(_ camel: String, _ message: RESTMessage) throws(EmulatorError) -> [JSONObject] {
        let items = try array(camel)
        guard !items.isEmpty else { return [] }
        var out: [JSONObject] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            out.append(try JSONObject(item, in: self, camel, index: i, message: message))
        }
        return out
    }

    func string(_ camel: String) throws(EmulatorError) -> String? {
        guard let v = self[camel] else { return nil }
        guard case .string(let s) = v else { throw bad(camel, "TYPE_STRING") }
        return s
    }

    func bool(_ camel: String) throws(EmulatorError) -> Bool? {
        switch self[camel] {
        case nil: return nil
        case .bool(let b)?: return b
        case .string(let s)? where s == "true" || s == "false": return s == "true"
        default: throw bad(camel, "TYPE_BOOL")
        }
    }

    /// An integer given as a number, a numeric string, or a wrapper `{"value": n}`.
    func int(_ camel: String, type: String = "TYPE_INT32") throws(EmulatorError) -> Int64? {
        guard let v = self[camel] else { return nil }
        guard let i = try Self.integer(v, context: path(camel)) else { throw bad(camel, type) }
        return i
    }

    static func integer(_ v: JSONValue, context: String) throws(EmulatorError) -> Int64? {
        switch v {
        case .int(let i): return i
        case .double(let d) where d == d.rounded() && abs(d) < 9.2e18: return Int64(d)
        case .string(let s): return Int64(s)
        case .object:
            let o = try JSONObject(v, context: context, message: .wrapper)
            return try o.int("value")
        default: return nil
        }
    }

    func array(_ camel: String) throws(EmulatorError) -> [JSONValue] {
        switch self[camel] {
        case nil: return []
        case .array(let a)?: return a
        case let other?:
            throw .invalidArgument("Invalid JSON payload received. Expected a list at '\(path(camel))', found \(JSONWriter.encodeToString(other)).")
        }
    }

    /// Base64 bytes (either alphabet, padding optional).
    func bytes(_ camel: String) throws(EmulatorError) -> [UInt8]? {
        guard let v = self[camel] else { return nil }
        guard case .string(let s) = v else { throw bad(camel, "TYPE_BYTES") }
        guard let b = Base64.decode(s, alphabet: nil) else {
            throw .invalidArgument("Invalid value at '\(path(camel))' (TYPE_BYTES), Base64 decoding failed for \(JSONWriter.encodeToString(v))")
        }
        return b
    }

    /// An RFC 3339 timestamp, as microseconds.
    func timestamp(_ camel: String) throws(EmulatorError) -> Int64? {
        guard let v = self[camel] else { return nil }
        let type = "type.googleapis.com/google.protobuf.Timestamp"
        guard case .string(let s) = v else { throw bad(camel, type) }
        do { return try Timestamp(rfc3339: s).microseconds } catch {
            throw .invalidArgument(
                "Invalid value at '\(path(camel))' (\(type)), Field '\(camel)', Illegal timestamp format; timestamps must end with 'Z' or have a valid timezone offset.")
        }
    }

    /// `Invalid value at 'page_size' (TYPE_INT32), "ten"`: the form production uses for a member
    /// of the wrong JSON type.
    func bad(_ camel: String, _ type: String) -> EmulatorError {
        .invalidArgument("Invalid value at '\(path(camel))' (\(type)), \(self[camel].map { JSONWriter.encodeToString($0) } ?? "null")")
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
