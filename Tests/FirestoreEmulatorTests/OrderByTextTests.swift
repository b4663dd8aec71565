import EmulatorModel
import Testing

@testable import FirestoreEmulator

/// ListDocuments' `order_by` text, shared by REST (`orderBy=`) and gRPC (field 6).
@Suite struct OrderByTextTests {
    static let valid: [(String, [([String], Bool)])] = [
        ("", []),
        ("a", [(["a"], false)]),
        ("a desc", [(["a"], true)]),
        ("a DESC,b ASC", [(["a"], true), (["b"], false)]),
        ("a.b  desc, c", [(["a", "b"], true), (["c"], false)]),
        ("__name__ desc", [(["__name__"], true)]),
    ]

    @Test(arguments: valid)
    func parsesFieldsAndDirections(text: String, expected: [([String], Bool)]) throws {
        let orders = try StructuredQuery.Order.list(parsing: text)
        #expect(orders.map(\.field.segments) == expected.map(\.0))
        #expect(orders.map { $0.direction == .descending } == expected.map(\.1))
    }

    @Test(arguments: ["a up", "a desc b", "a,b sideways"])
    func rejectsOtherWords(text: String) {
        #expect(throws: EmulatorError.invalidArgument("Invalid order_by \"\(text)\".")) {
            try StructuredQuery.Order.list(parsing: text)
        }
    }
}
