import EmulatorModel
import EmulatorStorage
import Testing
@testable import FirestoreEmulator

/// The transport-independent API gRPC will call: typed requests in, typed results or EmulatorError out.
@Suite struct ServiceAPITests {
    let service = FirestoreService(store: DocumentStore(engine: StorageEngine()))
    let db = DatabaseID(project: "p", database: "(default)")

    func name(_ path: String) throws(EmulatorError) -> DocumentName {
        try DocumentName.document("projects/p/databases/(default)/documents/\(path)")
    }

    @Test func typedCommitQueryAndAggregation() throws {
        let writes = try (1...5).map { i in
            Write(.update(try name("n/d\(i)"), fields: ["v": .integer(Int64(i)), "odd": .boolean(i % 2 == 1)], mask: nil))
        }
        let committed = try service.commit(db, writes: writes)
        #expect(committed.writeResults.count == 5)
        #expect(committed.writeResults.allSatisfy { $0.updateTime == committed.commitTime })

        let query = StructuredQuery(
            from: [.init(collectionID: "n")], filter: .field(FieldPath(["odd"]), .equal, .boolean(true)),
            orderBy: [.init(FieldPath(["v"]), .descending)], limit: 2)
        let result = try service.runQuery(db, parent: ResourcePath(), query: query)
        #expect(result.documents.map { $0.path.lastSegment } == ["d5", "d3"])

        let sum = try service.runAggregationQuery(
            db, parent: ResourcePath(),
            aggregation: AggregationQuery(query: StructuredQuery(from: [.init(collectionID: "n")]), aggregations: [.init(.sum(FieldPath(["v"])))]))
        #expect(sum.fields["field_1"] == .integer(15))
    }

    @Test func typedErrorsCarryCodesAndOfficialTexts() throws {
        do throws(EmulatorError) {
            _ = try service.commit(db, writes: [Write(.update(try name("n/x"), fields: [:], mask: []), precondition: .exists(true))])
            Issue.record("expected NOT_FOUND")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.message == "No document to update: projects/p/databases/(default)/documents/n/x")
        }
        do throws(EmulatorError) {
            _ = try service.rollback(db, transaction: [1, 2, 3])
            Issue.record("expected INVALID_ARGUMENT")
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }
}
