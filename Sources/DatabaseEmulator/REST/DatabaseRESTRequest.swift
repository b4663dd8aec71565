import EmulatorHTTP
import EmulatorModel
import EmulatorSupport

/// A REST request decoded into database terms: namespace, location, effective method, options.
struct DatabaseRESTRequest {
    enum Print { case normal, pretty, silent }

    var namespace: String
    var path: DatabasePath
    /// The URL named `<path>/.priority`.
    var isPriority: Bool
    var method: HTTPMethod
    var items: [(name: String, value: String)]
    var auth: DatabaseAuth
    var print: Print
    var export: Bool
    var wantsETag: Bool
    /// The most bytes a write may touch (`writeSizeLimit`); nil: no limit (`unlimited` or absent).
    var writeSizeBudget: Int?
    /// The read `timeout` in nanoseconds (default and maximum 15 minutes).
    var timeoutNanos: Int64 = Self.maxTimeoutNanos
    /// Whether the request gave a `timeout` (else the read needs no clock: see `DatabaseReadDeadline`).
    var hasTimeout = false

    /// Decodes `request` (whose path ends in `.json`).
    init(_ request: HTTPRequest, defaultNamespace: String) throws(DatabaseFailure) {
        items = request.queryItems
        namespace = try Self.namespace(request, items: items, defaultNamespace: defaultNamespace)

        var raw = request.rawPath
        raw.removeLast(".json".utf8.count)
        let decoded = raw.utf8.withContiguousStorageIfAvailable { Self.decodePath($0) }
            ?? Array(raw.utf8).withUnsafeBufferPointer { Self.decodePath($0) }
        switch decoded {
        case .success(let (keys, priority)):
            path = DatabasePath(keys: keys)
            isPriority = priority
        case .failure(let failure): throw failure
        }

        method = request.method
        if request.method == .post {
            let override = request.headers["X-HTTP-Method-Override"]
                ?? items.first { $0.name == "x-http-method-override" }?.value
            if let override {
                switch override.uppercased() {
                case "PUT": method = .put
                case "PATCH": method = .patch
                case "DELETE": method = .delete
                case "GET": method = .get
                case "POST": method = .post
                default: throw .invalid("Invalid X-HTTP-Method-Override: \(override)")
                }
            }
        }
        auth = try DatabaseRequestAuth.resolve(request, query: items)
        wantsETag = request.headers["X-Firebase-ETag"]?.lowercased() == "true"

        print = .normal
        export = false
        for (name, value) in items {
            switch name {
            case "print":
                switch value {
                case "pretty": print = .pretty
                case "silent": print = .silent
                default: throw .invalid("print must be one of 'pretty' or 'silent'")
                }
            case "format":
                guard value == "export" else { throw .invalid("format must be 'export'") }
                export = true
            case "timeout":
                timeoutNanos = try Self.parseTimeout(value)
                hasTimeout = true
            case "writeSizeLimit":
                guard let limit = DatabaseWriteSizeLimit(rawValue: value) else {
                    throw .invalid("writeSizeLimit must be one of tiny, small, medium, large, or unlimited")
                }
                writeSizeBudget = limit.byteBudget
            default: continue
            }
        }
    }

    /// The keys of a path's bytes (without `.json`), percent-decoded and checked, and whether its
    /// last segment is `.priority` (which is then not a key). Empty segments are skipped.
    static func decodePath(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<([String], Bool), DatabaseFailure> {
        var keys: [String] = []
        keys.reserveCapacity(4)
        var isPriority = false
        var start = 0
        while start < bytes.count {
            var end = start
            var plain = true  // ASCII without escapes: the bytes are the key
            while end < bytes.count, bytes[end] != UInt8(ascii: "/") {
                if bytes[end] >= 0x80 || bytes[end] == UInt8(ascii: "%") { plain = false }
                end += 1
            }
            defer { start = end + 1 }
            if start == end { continue }
            let segment = UnsafeBufferPointer(rebasing: bytes[start..<end])
            let decoded = plain ? String(decoding: segment, as: UTF8.self) : DatabasePath.percentDecode(segment)
            guard let key = decoded else { return .failure(.invalid(DatabaseFailure.invalidPath)) }
            if key == ".priority", bytes[end...].allSatisfy({ $0 == UInt8(ascii: "/") }) {
                isPriority = true
                continue
            }
            guard DatabaseInputValidator.isValidKey(key) else { return .failure(.invalid(DatabaseFailure.invalidPath)) }
            if key.utf8.count > DatabasePath.maxKeyBytes {
                return .failure(.invalid("Invalid path: key longer than \(DatabasePath.maxKeyBytes) bytes"))
            }
            keys.append(key)
        }
        if keys.count > DatabasePath.maxDepth {
            return .failure(.invalid("Invalid path: path exceeds the maximum depth of \(DatabasePath.maxDepth)"))
        }
        return .success((keys, isPriority))
    }

    /// `?ns=` wins; else the first DNS label of `Host` (`foo.localhost:9000` → `foo`, `localhost`
    /// → `localhost`); an IP address, no host, or a label that is no namespace name
    /// (`emulator_1`, a container name) gives the default namespace. An `ns` that breaks the
    /// namespace rule (``DatabaseNamespaceName``) is a 400: such a name would end up as a file
    /// name in every later export.
    static func namespace(_ request: HTTPRequest, items: [(name: String, value: String)], defaultNamespace: String)
        throws(DatabaseFailure) -> String
    {
        if let ns = items.first(where: { $0.name == "ns" })?.value, !ns.isEmpty {
            if let problem = DatabaseNamespaceName.problem(ns) { throw .invalid(problem) }
            return ns
        }
        guard let host = request.headers["Host"], !host.isEmpty else { return defaultNamespace }
        var name = Substring(host)
        if name.first == "[" { return defaultNamespace }  // IPv6 literal
        if let colon = name.lastIndex(of: ":") { name = name[..<colon] }
        if name.allSatisfy({ $0.isNumber || $0 == "." }) { return defaultNamespace }
        guard let label = name.split(separator: ".").first, DatabaseNamespaceName.isValid(label) else {
            return defaultNamespace
        }
        return String(label)
    }

    static let maxTimeoutNanos: Int64 = 900_000_000_000

    /// `<n>ms`, `<n>s` or `<n>min`, positive and at most 15 minutes: the timeout in nanoseconds.
    static func parseTimeout(_ text: String) throws(DatabaseFailure) -> Int64 {
        let units: [(suffix: String, ms: Int)] = [("ms", 1), ("min", 60_000), ("s", 1000)]
        for unit in units where text.hasSuffix(unit.suffix) {
            if let n = Int(text.dropLast(unit.suffix.count)), n > 0 {
                let (ms, overflow) = n.multipliedReportingOverflow(by: unit.ms)
                if !overflow, ms <= 900_000 { return Int64(ms) * 1_000_000 }
            }
            break
        }
        throw .invalid("timeout must be a positive duration of at most 15min, such as 500ms, 10s or 1min")
    }
}
