import EmulatorSupport
import Glibc
import Testing

@testable import SecurityRules

/// The 186 Realtime Database rule expressions targaryen recorded against the live service
/// (`../shared/corpora/targaryen/parser-fixtures.json`, ISC licence; read in place, never copied).
enum TargaryenCorpus {
    struct Case: Sendable, CustomTestStringConvertible {
        var index: Int
        var rule: String
        var auth: JSONValue?
        var root: JSONValue?
        var wildcards: [(name: String, value: String)]
        var query: DatabaseRulesQuery
        var expected: String

        var testDescription: String { "#\(index) \(rule)" }
    }

    static let fileSuffix = "shared/corpora/targaryen/parser-fixtures.json"

    /// Finds the corpus beside the package (`../shared`) or beside any ancestor directory.
    static func locate() -> String? {
        var directory = String(#filePath).split(separator: "/").dropLast(3).map(String.init)
        while true {
            let candidate = "/" + (directory.dropLast() + [fileSuffix]).joined(separator: "/")
            if access(candidate, R_OK) == 0 { return candidate }
            if directory.isEmpty { return nil }
            directory.removeLast()
        }
    }

    static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static let cases: [Case] = load()

    static func load() -> [Case] {
        guard let path = locate(), let text = readFile(path),
            case .success(let document) = LenientJSONParser.parse(text)
        else { return [] }
        let json = document.jsonValue
        guard case .array(let tests)? = json[member: "tests"], let users = json[member: "users"] else { return [] }
        var result: [Case] = []
        for (index, test) in tests.enumerated() {
            guard case .string(let rule)? = test[member: "rule"], case .string(let user)? = test[member: "user"] else { continue }
            var auth = users[member: user]
            if case .null? = auth { auth = nil }
            var wildcards: [(name: String, value: String)] = []
            if case .object(let members)? = test[member: "wildchildren"] {
                for member in members.sorted(by: { $0.name < $1.name }) {
                    if case .string(let value) = member.value { wildcards.append((member.name, value)) }
                }
            }
            var query = DatabaseRulesQuery()
            if let q = test[member: "query"] {
                if case .string(let child)? = q[member: "orderByChild"] { query.orderBy = .child(child) }
                if case .bool(true)? = q[member: "orderByValue"] { query.orderBy = .value }
                if case .bool(true)? = q[member: "orderByPriority"] { query.orderBy = .priority }
                if case .bool(true)? = q[member: "orderByKey"] { query.orderBy = .key }
                query.startAt = q[member: "startAt"]
                query.endAt = q[member: "endAt"]
                query.equalTo = q[member: "equalTo"]
                if case .int(let n)? = q[member: "limitToFirst"] { query.limitToFirst = Int(n) }
                if case .int(let n)? = q[member: "limitToLast"] { query.limitToLast = Int(n) }
            }
            let expected: String
            if case .bool(false)? = test[member: "isValid"] {
                expected = "invalid"
            } else if case .bool(true)? = test[member: "failAtRuntime"] {
                expected = "error"
            } else if case .bool(let b)? = test[member: "evaluateTo"] {
                expected = b ? "true" : "false"
            } else {
                expected = "?"
            }
            result.append(Case(index: index, rule: rule, auth: auth, root: test[member: "data"], wildcards: wildcards,
                               query: query, expected: expected))
        }
        return result
    }
}

/// Skips the corpus tests, with the reason, in a clone that has no `../shared` beside it; CI has it.
let targaryenCorpusPresent: ConditionTrait = .enabled(
    if: TargaryenCorpus.locate() != nil,
    "needs \(TargaryenCorpus.fileSuffix) beside the package (present in CI, absent in a standalone clone)")

@Test("The targaryen corpus is present and complete", targaryenCorpusPresent)
func targaryenCorpusLoads() {
    #expect(TargaryenCorpus.cases.count == 186, "corpus not found beside the package (\(TargaryenCorpus.fileSuffix))")
}

@Test("Recorded Realtime Database verdicts", targaryenCorpusPresent, arguments: TargaryenCorpus.cases)
func targaryenVerdict(_ testCase: TargaryenCorpus.Case) {
    let outcome = DatabaseRuleset.evaluateReadRule(
        testCase.rule, wildcards: testCase.wildcards, auth: testCase.auth, root: testCase.root, query: testCase.query)
    let actual: String
    switch outcome {
    case .invalid: actual = "invalid"
    case .error: actual = "error"
    case .value(let b): actual = b ? "true" : "false"
    }
    #expect(actual == testCase.expected, "\(testCase.rule): \(outcome)")
}
