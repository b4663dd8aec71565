import Testing

@testable import SecurityRules

/// Each expression must evaluate to `true`: examples from the rules language documentation
/// (firebase.google.com/docs/rules/rules-language, its operator table, and
/// firebase.google.com/docs/reference/rules) and verdicts production gave in davideast/pyric's
/// recorded cases.
private let trueExpressions: [String] = [
    // Arithmetic
    "-7 / 2 == -3", "-7 % 2 == -1", "10 / 4.0 == 2.5", "math.sqrt(4) == 2", "math.ceil(1.2) == 2", "1 == 1.0",
    "2 + 3 * 4 == 14", "(2 + 3) * 4 == 20", "'a' + 'b' == 'ab'", "'abc' < 'abd'", "'b' > 'abc'", "-(3) == -3",
    // in, slices
    "!('toString' in {'a': 1})", "'a' in {'a': 1}", "2 in [1, 2]", "'x' in ['x'].toSet()",
    "[1, 2, 3][1:2] == [2]", "'abc'[1:3] == 'bc'", "[1, 2][1:1] == []", "[1, 2, 3][:2] == [1, 2]", "[1, 2, 3][1:] == [2, 3]",
    // Time
    "timestamp.date(2020, 1, 2) + duration.value(1, 'd') == timestamp.date(2020, 1, 3)",
    "timestamp.date(2020, 1, 3) - timestamp.date(2020, 1, 2) == duration.value(1, 'd')",
    "duration.value(1, 'h') + duration.value(30, 'm') == duration.time(1, 30, 0, 0)",
    "timestamp.date(2020, 1, 2) > timestamp.date(2020, 1, 1)",
    "timestamp.value(86400000).day() == 2", "timestamp.date(2024, 3, 1).dayOfYear() == 61",
    "timestamp.date(2024, 1, 1).dayOfWeek() == 1", "timestamp.value(1500).toMillis() == 1500",
    "timestamp.date(2020, 5, 6).month() == 5", "timestamp.date(2020, 5, 6).year() == 2020",
    "timestamp.value(3723000).hours() == 1 && timestamp.value(3723000).minutes() == 2 && timestamp.value(3723000).seconds() == 3",
    "timestamp.value(3723000).time() == duration.time(1, 2, 3, 0)", "timestamp.value(3723000).date() == timestamp.value(0)",
    "duration.value(90, 's').seconds() == 90",
    "(timestamp.date(9999, 12, 31) - timestamp.date(1, 1, 1)).seconds() == 315537811200",
    "timestamp.value(500) - timestamp.value(1200) == duration.value(-700, 'ms')", "duration.value(5, 'ns').nanos() == 5",
    "duration.abs(duration.value(-5, 's')) == duration.value(5, 's')", "duration.value(1, 'w') == duration.value(7, 'd')",
    // Types
    "'x'.toUtf8() is bytes", "1 is int", "1.0 is float", "1 is number", "1.5 is number", "{} is map", "[] is list",
    "/a/b is path", "latlng.value(1, 2) is latlng", "'s' is string", "true is bool", "timestamp.value(0) is timestamp",
    "duration.value(1, 's') is duration", "!(1 is string)",
    // Strings (rules.String)
    "'foo@test.com'.replace('.', '-') == '------------'", "'abc'.matches('a.c')", "!'xabc'.matches('abc')",
    "'user@acme.com'.matches('.*@acme\\\\.com')", "'a,b,c'.split(',') == ['a', 'b', 'c']", "'a1b22c'.split('[0-9]+') == ['a', 'b', 'c']",
    "'ABC'.lower() == 'abc'", "'abc'.upper() == 'ABC'", "'  a '.trim() == 'a'", "'héllo'.size() == 5",
    "'héllo'.toUtf8().size() == 6", "'aaa'.replace('a+', 'b') == 'b'",
    // Lists (rules.List)
    "['a', 'a', 'b'].hasOnly(['a', 'b', 'b'])", "[1, 2].concat([2]) == [1, 2, 2]", "[1, 2].hasAll([1])",
    "[1, 2].hasAny([3, 2])", "!([1, 2].hasAny([3]))", "['a', 'b'].join('-') == 'a-b'", "[1, 2, 1].removeAll([1]) == [2]",
    "[1, 1, 2].toSet() == [2, 1].toSet()", "[1, 1, 2].toSet().size() == 2", "[1, 2].size() == 2", "[[1]] == [[1]]",
    // Maps (rules.Map)
    "{'a': {'b': 1}, 'c': 2}.get(['a', 'b'], 7) == 1", "{'a': 1}.get(['a', 'b'], 7) == 7", "{'a': 1}.get('x', 0) == 0",
    "{'b': 2, 'a': 1}.keys() == ['a', 'b']", "{'a': 1}.values() == [1]", "{'a': 1}.size() == 1", "{'a': 1}['a'] == 1",
    "{'a': 1}.a == 1", "{'a': 1, 'b': 2} == {'b': 2, 'a': 1}",
    // MapDiff
    "{'a': 1, 'b': 2, 'c': 3}.diff({'a': 1, 'b': 5, 'd': 4}).addedKeys() == ['c'].toSet()",
    "{'a': 1, 'b': 2, 'c': 3}.diff({'a': 1, 'b': 5, 'd': 4}).removedKeys() == ['d'].toSet()",
    "{'a': 1, 'b': 2, 'c': 3}.diff({'a': 1, 'b': 5, 'd': 4}).changedKeys() == ['b'].toSet()",
    "{'a': 1, 'b': 2, 'c': 3}.diff({'a': 1, 'b': 5, 'd': 4}).unchangedKeys() == ['a'].toSet()",
    "{'a': 1, 'b': 2, 'c': 3}.diff({'a': 1, 'b': 5, 'd': 4}).affectedKeys() == ['b', 'c', 'd'].toSet()",
    "{'a': 1}.diff({'a': 2}).affectedKeys().hasOnly(['a'])",
    // Sets
    "['a', 'b'].toSet().union(['c'].toSet()) == ['a', 'b', 'c'].toSet()",
    "['a', 'b'].toSet().difference(['a'].toSet()) == ['b'].toSet()",
    "['a', 'b'].toSet().intersection(['b', 'c'].toSet()) == ['b'].toSet()", "['a'].toSet().hasAll(['a'])",
    // Bytes and hashing
    "'hi'.toUtf8().toBase64() == 'aGk='", "'~~~'.toUtf8().toBase64() == 'fn5-'", "b'ab'.size() == 2",
    "hashing.crc32('123456789').toHexString() == '2639F4CB'", "hashing.crc32c('123456789').toHexString() == '839206E3'",
    "hashing.md5('abc').toHexString() == '900150983CD24FB0D6963F7D28E17F72'",
    "hashing.sha256('abc').toHexString() == 'BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD'",
    "hashing.sha256('abc'.toUtf8()) == hashing.sha256('abc')",
    // Casts
    "string(true) == 'true'", "string(2.0) == '2.0'", "string(null) == 'null'", "string(7) == '7'", "int('42') == 42",
    "int(2.7) == 2", "int(-2.7) == -2", "float(1) == 1.0", "float('1.5') == 1.5",
    // Math
    "math.abs(-3) == 3", "math.abs(-2.5) == 2.5", "math.floor(1.7) == 1", "math.round(2.5) == 3", "math.round(-2.5) == -3",
    "math.pow(2, 10) == 1024", "!math.isNaN(1.0)", "math.isInfinite(math.pow(10, 400))",
    // Paths and latlng
    "path('/a/b')[1] == 'b'", "/databases/x/documents == path('databases/x/documents')",
    "/databases/$('d' + 'b')/documents == path('/databases/db/documents')",
    "path('/users/{uid}').bind({'uid': 'alice'}) == /users/alice",
    "latlng.value(0, 0).distance(latlng.value(0, 1)) > 111000 && latlng.value(0, 0).distance(latlng.value(0, 1)) < 112000",
    "latlng.value(1, 2).latitude() == 1 && latlng.value(1, 2).longitude() == 2",
    // Control flow and error absorption
    "(1 < 2 ? 'a' : 'b') == 'a'", "(1 / 0 > 0) || true", "true || (1 / 0 > 0)", "!((1 / 0 > 0) && false)",
    "!(false && (1 / 0 > 0))", "debug(1) == 1",
]

/// Each expression must fail with an evaluation error whose message contains the given text.
private let errorExpressions: [(String, String)] = [
    ("1 / 0", "Division by zero"), ("1 % 0", "Modulo by zero"), ("{'a': 1}.constructor", "Property constructor is undefined"), ("1.0 / 0", "Division by zero"),
    ("{'a': 1}.b", "Property b is undefined on object."), ("[1, 2][5]", "out of range"),
    ("[1, 2][1:99]", "out of bounds"), ("'abc'[2:9]", "out of bounds"), ("'a' < 1", "Unsupported operation"),
    ("1 && true", "bool operands"), ("!1", "bool operand"), ("(1 / 0 > 0) || false", "Division by zero"),
    ("(1 / 0 > 0) && true", "Division by zero"), ("true && (1 / 0 > 0)", "Division by zero"),
    ("!(1 / 0 > 0)", "Division by zero"), ("(1 / 0) == 1", "Division by zero"), ("true ? 1 / 0 : 1", "Division by zero"),
    ("1 ? true : false", "bool condition"), ("{'a': 1}.hasAll(['a'])", "Function not found error: Name: [hasAll]."),
    ("['a'].toSet().difference(['a'])", "Invalid argument"), ("{'a': 1}.keys().difference(['a'].toSet())", "Function not found"),
    ("9223372036854775807 + 1", "overflow"), ("bool(1)", "Function not found error: Name: [bool]."),
    ("path(/a/b)", "Invalid argument"), ("math.sqrt(-1)", "negative"), ("[1] + [2]", "Unsupported operation"),
    ("null.x", "Null value error."), ("unknownVariable", "not defined"), ("'a'.startsWith('a')", "Function not found"),
    ("math.nothing(1)", "Function not found error: Name: [math.nothing]."), ("timestamp.date(2021, 2, 30)", "Invalid date"),
    ("duration.value(1, 'y')", "Invalid duration unit"), ("duration.time(9223372036854775807, 0, 0, 0)", "overflow"),
    ("timestamp.value(9223372036854775807)", "out of range"), ("latlng.value(91, 0)", "Invalid latitude"),
    ("'a'.matches('(')", "Invalid regular expression"), ("int('x')", "Cannot convert"),
]

@Test("Firestore expressions that evaluate to true", arguments: trueExpressions)
func firestoreTrueExpression(_ expression: String) {
    let (result, _) = FirestoreRuleset.evaluateExpression(expression)
    switch result {
    case .success(let value):
        guard case .bool(true) = value else {
            Issue.record("\(expression) evaluated to \(value.displayText)")
            return
        }
    case .failure(let error):
        Issue.record("\(expression) failed: \(error.message)")
    }
}

@Test("Firestore expressions that are evaluation errors", arguments: errorExpressions)
func firestoreErrorExpression(_ expression: String, _ expected: String) {
    let (result, _) = FirestoreRuleset.evaluateExpression(expression)
    switch result {
    case .success(let value):
        Issue.record("\(expression) evaluated to \(value.displayText), expected an error")
    case .failure(let error):
        #expect(error.message.contains(expected), "\(expression): \(error.message)")
    }
}

@Test("debug() returns its argument and writes it to the log")
func firestoreDebugWritesToLog() {
    let (result, output) = FirestoreRuleset.evaluateExpression("debug({'a': [1, 'x']}).a.size() == 2")
    guard case .success(.bool(true)) = result else {
        Issue.record("unexpected \(result)")
        return
    }
    #expect(output == ["{\"a\": [1, \"x\"]}"])
}

@Test("String literals reject unknown escapes, as production does")
func firestoreUnknownEscapeIsSyntaxError() {
    let (result, _) = FirestoreRuleset.evaluateExpression("'a\\.b' == 'a'")
    guard case .failure(let error) = result else {
        Issue.record("expected a syntax error")
        return
    }
    #expect(error.message.hasPrefix("syntax:"))
}

@Test("List and set methods stay fast and exact on 20,000-element arrays from documents")
func firestoreLargeListMethods() throws {
    let big = RulesValue.list((0..<20_000).map { .string("v\($0)") })
    let conditions = [
        "d.big.toSet().size() == 20000", "d.big.hasOnly(d.big)", "d.big.hasAll(d.big)", "d.big.hasAny(['v19999'])",
        "d.big.concat([1, 1.0]).toSet().size() == 20001", "d.big.removeAll(d.big).size() == 0",
        "d.big.toSet().difference(d.big.toSet()).size() == 0", "d.big.toSet() == d.big.toSet()",
        "!d.big.concat(['\\u00e9']).hasAny(['e\\u0301'])",
    ]
    for condition in conditions {
        let rules = try FirestoreRuleset.parse("""
            rules_version = '2';
            service cloud.firestore { match /databases/{db}/documents { match /c/{id} {
              function check(d) { return \(condition); }
              allow get: if check(resource.data);
            } } }
            """, fileName: "big.rules").get()
        let request = FirestoreRulesRequest(
            method: .get, path: "databases/(default)/documents/c/x", time: RulesTimestamp(seconds: 0, nanos: 0),
            resource: RulesDocument(name: "databases/(default)/documents/c/x", data: ["big": big]))
        let decision = rules.evaluate(request, data: EmptyFirestoreRulesDataSource())
        #expect(decision.isAllowed, "\(condition): \(decision.message)")
    }
}
