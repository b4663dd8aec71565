import EmulatorModel
import EmulatorSupport
import Testing

/// The wire `q` object the Swift client writes is the one the emulator reads, for every shape of
/// query (one definition, both directions).
@Suite struct DatabaseQueryParamsTests {
    static let queries: [DatabaseQueryParams] = [
        DatabaseQueryParams(index: .key, ordered: true),
        DatabaseQueryParams(index: .priority, ordered: true),
        DatabaseQueryParams(index: .value, limit: .first(2), ordered: true),
        DatabaseQueryParams(
            index: .child(DatabasePath(keys: ["stats", "points"])), start: .init(value: .int(10), inclusive: false),
            limit: .last(3), ordered: true),
        DatabaseQueryParams(
            index: .key, start: .init(value: .string("b"), inclusive: true), end: .init(value: .string("m"), inclusive: false),
            ordered: true),
        DatabaseQueryParams(
            index: .value, start: .init(value: .double(1.5), key: "k1", inclusive: true),
            end: .init(value: .double(1.5), key: "k9", inclusive: true), ordered: true),
        DatabaseQueryParams(limit: .first(1)),
    ]

    @Test(arguments: queries) func theWireObjectReadsBackAsTheSameQuery(_ query: DatabaseQueryParams) throws {
        let wire = try #require(query.wire)
        var expected = query
        expected.ordered = true  // any `q` object names an index, priority when it says none
        #expect(DatabaseQueryParams(wire: wire) == expected)
    }

    @Test func theDefaultQuerySendsNoObject() {
        #expect(DatabaseQueryParams.all.wire == nil)
        #expect(DatabaseQueryParams(wire: .object([])) == .all)
    }
}
