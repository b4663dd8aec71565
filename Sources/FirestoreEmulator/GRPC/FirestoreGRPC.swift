package import EmulatorHTTP
package import EmulatorHTTP2
import EmulatorModel
import EmulatorProtobuf

/// Firestore's gRPC face (`google.firestore.v1.Firestore`): decodes protobuf requests, calls the
/// same ``FirestoreService`` as REST and encodes the answers. Errors become `grpc-status` with the
/// same messages REST sends.
///
/// ```swift
/// let grpc = FirestoreGRPC(service: emulator.service)
/// configuration.http2Handler = grpc.connectionFactory
/// ```
package struct FirestoreGRPC: Sendable {
    package static let serviceName = "google.firestore.v1.Firestore"
    let service: FirestoreService
    /// GetDocument's protobuf answers, reused while the document is unchanged.
    let documentCache = EncodedDocumentCache()

    package init(service: FirestoreService) { self.service = service }

    /// The method table.
    package var router: GRPCRouter {
        var router = GRPCRouter()
        register(on: &router)
        return router
    }

    /// The transport hook for connections that open with the HTTP/2 preface.
    package var connectionFactory: HTTP2ConnectionHandlerFactory { connectionFactory(gate: nil) }

    /// The transport hook, with `gate` deciding when each call's reply may go out (the suite holds
    /// writes' replies until they are durable with a live data directory).
    package func connectionFactory(gate: ReplyGate?) -> HTTP2ConnectionHandlerFactory {
        GRPCServerConnection.factory(router: router, gate: gate)
    }

    package func register(on router: inout GRPCRouter) {
        let s = Self.serviceName
        router.register(s, "GetDocument", unary(getDocument))
        router.register(s, "ListDocuments", unary(listDocuments))
        router.register(s, "CreateDocument", unary(createDocument))
        router.register(s, "UpdateDocument", unary(updateDocument))
        router.register(s, "DeleteDocument", unary(deleteDocument))
        router.register(s, "BeginTransaction", unary(beginTransaction))
        router.register(s, "Commit", unary(commit))
        router.register(s, "Rollback", unary(rollback))
        router.register(s, "ListCollectionIds", unary(listCollectionIds))
        router.register(s, "BatchWrite", unary(batchWrite))
        router.register(s, "PartitionQuery", unary(partitionQuery))
        router.register(s, "BatchGetDocuments", paced(batchGetDocuments))
        router.register(s, "RunQuery", paced(runQuery))
        router.register(s, "RunAggregationQuery", streaming(runAggregationQuery))
        let service = self.service
        router.register(s, "Listen", .bidirectional { context, writer in
            FirestoreListenCall(service: service, caller: Self.caller(context), writer: writer)
        })
        router.register(s, "Write", .bidirectional { context, writer in
            FirestoreWriteCall(service: service, caller: Self.caller(context), writer: writer)
        })
    }

    // MARK: Adapters

    typealias Unary = @Sendable (ProtoReader, FirestoreCaller) throws(EmulatorError) -> [UInt8]
    typealias Streaming = @Sendable (ProtoReader, FirestoreCaller, (ProtoWriter) -> Void) throws(EmulatorError) -> Void

    /// A unary method. One that must wait for a document lock answers later (the call stays
    /// open, the thread goes on); a reset or closed call withdraws the wait.
    func unary(_ body: @escaping Unary) -> GRPCMethod {
        .unaryLater { context, request, writer in
            let attempt = LockAttempt()
            let run: @Sendable () -> Result<[UInt8], GRPCStatus> = {
                do throws(EmulatorError) { return .success(try body(ProtoReader(request), Self.caller(context))) } catch {
                    return .failure(Self.status(error))
                }
            }
            let answer: @Sendable (Result<[UInt8], GRPCStatus>) -> Void = { result in
                switch result {
                case .success(let bytes): writer.respond(bytes)
                case .failure(let status): writer.finish(status)
                }
            }
            switch attempt.run(run) {
            case .now(let result): answer(result)
            case .later(let pending):
                writer.onCancel { attempt.cancel() }
                pending.onResult(answer)
            }
        }
    }

    /// A server-streaming method; waits for locks as ``unary(_:)`` does. The service answers
    /// after its reads, so a request parks before it sent anything.
    func streaming(_ body: @escaping Streaming) -> GRPCMethod {
        .serverStreamingLater { context, request, writer in
            let attempt = LockAttempt()
            let run: @Sendable () -> GRPCStatus = {
                do throws(EmulatorError) {
                    try body(ProtoReader(request), Self.caller(context)) { writer.send($0.bytes) }
                    return .ok
                } catch {
                    return Self.status(error)
                }
            }
            switch attempt.run(run) {
            case .now(let status): writer.finish(status)
            case .later(let pending):
                writer.onCancel { attempt.cancel() }
                pending.onResult { writer.finish($0) }
            }
        }
    }

    static func status(_ error: EmulatorError) -> GRPCStatus { GRPCStatus(error.code.rawValue, error.message) }

    /// `authorization: Bearer owner` (any case) bypasses rules; any other bearer token is a user token.
    static func caller(_ context: GRPCCallContext) -> FirestoreCaller {
        FirestoreCaller(authorization: context.metadata.first("authorization"))
    }

    // MARK: Encoding helpers

    static func write(_ d: StoredDocument, database: DatabaseID, to w: inout ProtoWriter) {
        ProtoDocument(name: database.documentName(d.path), fields: d.fields, createTime: d.createTime, updateTime: d.updateTime)
            .write(to: &w)
    }

    static func write(_ r: WriteResult, to w: inout ProtoWriter) {
        if let t = r.updateTime { ProtoValue.writeTimestamp(1, microseconds: t, to: &w) }
        for v in r.transformResults { w.message(2) { ProtoValue.write(v, to: &$0) } }
    }

    static func encode(_ body: (inout ProtoWriter) -> Void) -> [UInt8] {
        var w = ProtoWriter()
        // One allocation for a typical answer (a document of about 1 KB) instead of a doubling series.
        w.bytes.reserveCapacity(1024)
        body(&w)
        return w.bytes
    }
}
