import EmulatorSupport

/// The parts of firebase.json this suite reads, parsed but not yet resolved against the disk.
///
/// Unknown keys are ignored, as the official CLI ignores them; a known key with a value of the
/// wrong type is an error that names the key.
///
/// ```swift
/// let config = try FirebaseConfig.parse(Array(#"{"emulators":{"firestore":{"port":8181}}}"#.utf8), file: "firebase.json")
/// config.endpoints[.firestore]?.port // 8181
/// ```
package struct FirebaseConfig: Sendable, Equatable {
    /// `emulators.<name>.{host,port}` as written.
    package struct Endpoint: Sendable, Equatable {
        package var host: String?
        package var port: Int?

        package init(host: String? = nil, port: Int? = nil) {
            self.host = host
            self.port = port
        }
    }

    /// `firestore.rules`: the single form, or an array form.
    package enum FirestoreRules: Sendable, Equatable {
        case none
        case file(String)
        /// The array form with more than one database: the official emulator loads no rules then.
        case multipleDatabases(Int)
    }

    /// One entry of `database` (single form: instance and target both nil).
    package struct DatabaseRulesEntry: Sendable, Equatable {
        package var instance: String?
        package var target: String?
        package var rules: String

        package init(instance: String? = nil, target: String? = nil, rules: String) {
            self.instance = instance
            self.target = target
            self.rules = rules
        }
    }

    /// Emulators the file configures (a top-level `firestore`/`database` key or `emulators.<name>`).
    package var configured: Set<EmulatorKind> = []
    package var endpoints: [EmulatorKind: Endpoint] = [:]
    package var firestoreRules: FirestoreRules = .none
    package var databaseRules: [DatabaseRulesEntry] = []
    /// `emulators.singleProjectMode`; absent counts as true.
    package var singleProjectMode = true
    /// `emulators.ui.enabled`: nil when absent (the UI then runs with `start`, and with `exec --ui`).
    /// Its host and port are in `endpoints[.ui]`.
    package var uiEnabled: Bool?
    /// Official emulators `emulators` configures that this suite does not run (`auth`, `storage`, …),
    /// in file order.
    package var unserved: [String] = []

    package init() {}

    /// Parses firebase.json bytes; `file` is used in error messages only.
    package static func parse(_ bytes: [UInt8], file: String) throws(ConfigurationError) -> FirebaseConfig {
        let root: JSONValue
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            throw ConfigurationError(.malformedJSON, error.message, file: file, line: error.line, column: error.column)
        }
        var reader = KeyReader(file: file)
        return try reader.read(root)
    }
}

/// Walks the JSON tree and reports type errors by key path (`emulators.firestore.port`).
private struct KeyReader {
    let file: String

    mutating func read(_ root: JSONValue) throws(ConfigurationError) -> FirebaseConfig {
        guard case .object = root else {
            throw wrongType("the top level", expected: "an object", found: root)
        }
        var config = FirebaseConfig()
        if let firestore = root[member: "firestore"] {
            config.configured.insert(.firestore)
            config.firestoreRules = try firestoreRules(firestore)
        }
        if let database = root[member: "database"] {
            config.configured.insert(.database)
            config.databaseRules = try databaseRules(database)
        }
        if let emulators = root[member: "emulators"] {
            guard case .object(let members) = emulators else {
                throw wrongType("emulators", expected: "an object", found: emulators)
            }
            for member in members {
                switch member.name {
                case "singleProjectMode":
                    guard case .bool(let flag) = member.value else {
                        throw wrongType("emulators.singleProjectMode", expected: "true or false", found: member.value)
                    }
                    config.singleProjectMode = flag
                case "ui":
                    config.endpoints[.ui] = try endpoint(member.value, key: "emulators.ui")
                    if let enabled = member.value[member: "enabled"] {
                        guard case .bool(let flag) = enabled else {
                            throw wrongType("emulators.ui.enabled", expected: "true or false", found: enabled)
                        }
                        config.uiEnabled = flag
                    }
                default:
                    guard let kind = EmulatorKind(rawValue: member.name) else {
                        if EmulatorKind.officialNames.contains(member.name) { config.unserved.append(member.name) }
                        continue
                    }
                    config.endpoints[kind] = try endpoint(member.value, key: "emulators.\(member.name)")
                    if kind.isEmulator { config.configured.insert(kind) }
                }
            }
        }
        return config
    }

    func endpoint(_ value: JSONValue, key: String) throws(ConfigurationError) -> FirebaseConfig.Endpoint {
        guard case .object = value else { throw wrongType(key, expected: "an object", found: value) }
        var endpoint = FirebaseConfig.Endpoint()
        if let host = value[member: "host"] {
            guard case .string(let text) = host, !text.isEmpty else {
                throw wrongType("\(key).host", expected: "a host name or address", found: host)
            }
            endpoint.host = text
        }
        if let port = value[member: "port"] {
            endpoint.port = try portNumber(port, key: "\(key).port")
        }
        return endpoint
    }

    /// Reads a port as the official CLI does (`parseInt`): a number, or a string of leading digits.
    func portNumber(_ value: JSONValue, key: String) throws(ConfigurationError) -> Int {
        let number: Int?
        switch value {
        case .int(let n): number = Int(exactly: n)
        case .double(let d): number = d.rounded(.towardZero) == d && abs(d) < 1e9 ? Int(d) : nil
        case .string(let s):
            let digits = s.drop { $0 == " " }.prefix { $0.isASCII && $0.isNumber }
            number = Int(digits)
        default:
            throw wrongType(key, expected: "a port number", found: value)
        }
        guard let number, (0...65535).contains(number) else {
            throw ConfigurationError(
                .invalidValue, "\(key) must be a port number between 0 and 65535, found \(Self.render(value))",
                file: file)
        }
        return number
    }

    func firestoreRules(_ value: JSONValue) throws(ConfigurationError) -> FirebaseConfig.FirestoreRules {
        switch value {
        case .object:
            return try rulesPath(value, key: "firestore").map(FirebaseConfig.FirestoreRules.file) ?? .none
        case .array(let entries):
            for (index, entry) in entries.enumerated() {
                guard case .object = entry else {
                    throw wrongType("firestore[\(index)]", expected: "an object", found: entry)
                }
                if entry[member: "database"] == nil && entry[member: "target"] == nil {
                    throw ConfigurationError(
                        .invalidValue, "firestore[\(index)]: Must supply either \"target\" or \"databaseId\" in firestore config",
                        file: file)
                }
            }
            if entries.count > 1 { return .multipleDatabases(entries.count) }
            guard let first = entries.first else { return .none }
            return try rulesPath(first, key: "firestore[0]").map(FirebaseConfig.FirestoreRules.file) ?? .none
        default:
            throw wrongType("firestore", expected: "an object or an array", found: value)
        }
    }

    func databaseRules(_ value: JSONValue) throws(ConfigurationError) -> [FirebaseConfig.DatabaseRulesEntry] {
        switch value {
        case .object:
            guard let rules = try rulesPath(value, key: "database") else { return [] }
            return [FirebaseConfig.DatabaseRulesEntry(rules: rules)]
        case .array(let entries):
            var result: [FirebaseConfig.DatabaseRulesEntry] = []
            for (index, entry) in entries.enumerated() {
                let key = "database[\(index)]"
                guard case .object = entry else { throw wrongType(key, expected: "an object", found: entry) }
                let instance = try optionalString(entry[member: "instance"], key: "\(key).instance")
                let target = try optionalString(entry[member: "target"], key: "\(key).target")
                if instance == nil && target == nil {
                    throw ConfigurationError(
                        .invalidValue, "\(key): Must supply either \"target\" or \"instance\" in database config",
                        file: file)
                }
                guard let rules = try rulesPath(entry, key: key) else { continue }
                result.append(FirebaseConfig.DatabaseRulesEntry(instance: instance, target: target, rules: rules))
            }
            return result
        default:
            throw wrongType("database", expected: "an object or an array", found: value)
        }
    }

    func rulesPath(_ object: JSONValue, key: String) throws(ConfigurationError) -> String? {
        try optionalString(object[member: "rules"], key: "\(key).rules")
    }

    func optionalString(_ value: JSONValue?, key: String) throws(ConfigurationError) -> String? {
        guard let value else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, expected: "a string", found: value) }
        return text
    }

    func wrongType(_ key: String, expected: String, found: JSONValue) -> ConfigurationError {
        ConfigurationError(.wrongType, "\(key) must be \(expected), found \(Self.kindName(found))", file: file)
    }

    static func kindName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    static func render(_ value: JSONValue) -> String {
        switch value {
        case .int(let n): "\(n)"
        case .double(let d): "\(d)"
        case .string(let s): "\"\(s)\""
        default: kindName(value)
        }
    }
}
