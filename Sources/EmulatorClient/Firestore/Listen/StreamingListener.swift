import EmulatorModel
import EmulatorProtobuf
import Foundation
import Synchronization

/// A snapshot listener over the Firestore `Listen` stream (gRPC on the emulator's port): one
/// HTTP/2 connection and one reading thread per listener, feeding a ``ListenView``. A dropped
/// connection marks the view as from the cache and is reopened with backoff (0.1 s doubling to
/// 5 s); the target is added again with the last resume token (the emulator answers RESET and the
/// current result), and the view compares it with what it showed, so the next snapshot carries
/// exactly the changes made meanwhile. An existence filter whose count differs from the documents
/// kept (the view went wrong somehow) makes the listener drop them and its resume token and listen
/// again from nothing, as the official SDKs do; the view compares the full result with what it
/// showed. A target the server removes (rules refusing the read, an
/// invalid query) ends the listener with that error.
final class StreamingListener: ListenerRegistration {
    private let stopped: StopFlag
    private let interrupter = Mutex<Interrupter?>(nil)

    private let view: ListenView

    init(
        firestore: Firestore, target: ListenTargetSpec, stopped: StopFlag, view: ListenView,
        fail: @escaping @Sendable (FirestoreError) -> Void
    ) {
        self.stopped = stopped
        self.view = view
        view.start()
        BackgroundThread.run(name: "SnapshotListener") { [self] in
            if let error = firestore.configurationError { return fail(error) }
            var delay = 0.1
            // The first resync after a snapshot reopens at once; another before the next snapshot
            // waits like a reconnect, so a server that keeps asking is not hammered.
            var resyncAtOnce = true
            var state = ListenTargetState(targetID: 1)
            defer { view.stop() }
            while !stopped.isSet {
                var resync = false
                do {
                    let address = firestore.address
                    let call = try GRPCStreamConnection(
                        host: address.host, port: address.port, path: "/google.firestore.v1.Firestore/Listen",
                        metadata: [
                            ("authorization", firestore.authorizationHeader),
                            ("google-cloud-resource-prefix", firestore.databaseName),
                        ])
                    interrupter.withLock { $0 = call.interrupter }
                    if stopped.isSet { return }
                    try call.send(target.addRequest(targetID: 1, resumeToken: state.resumeToken))
                    reading: while !stopped.isSet {
                        switch try call.next() {
                        case .message(let bytes):
                            let event: ListenEvent
                            do throws(EmulatorError) { event = try ListenEvent.decode(bytes) } catch {
                                return fail(FirestoreError(.internal, "Unreadable ListenResponse: \(error.message)"))
                            }
                            switch state.apply(event) {
                            case .snapshot(let documents, let readTime)?:
                                delay = 0.1
                                resyncAtOnce = true
                                view.serverSnapshot(documents, readTime: readTime)
                            case .failed(let code, let message)?:
                                return fail(FirestoreError(FirestoreErrorCode(rawValue: Int(code)), message))
                            case .resync?:
                                // Closing this call and adding the target on a new one, without a
                                // resume token, is the simplest way to drop every response in flight.
                                resync = true
                                break reading
                            case nil: break
                            }
                        case .end(let code, let message):
                            // OK, CANCELLED and UNAVAILABLE end a stream a client reopens; others are final.
                            if [0, 1, 14].contains(code) { break reading }
                            return fail(FirestoreError(FirestoreErrorCode(rawValue: code), message))
                        }
                    }
                } catch {
                    // The connection failed or broke: reopen it below.
                }
                if stopped.isSet { return }
                if resync && resyncAtOnce {
                    resyncAtOnce = false
                    continue
                }
                state.disconnected()
                view.disconnected()
                usleep(useconds_t(delay * 1_000_000))
                delay = min(delay * 2, 5)
            }
        }
    }

    func remove() {
        stopped.set()
        interrupter.withLock { $0?.interrupt() }
    }

    /// Breaks the current connection as a network failure would; the listener reconnects. For tests.
    package func simulateConnectionLoss() {
        interrupter.withLock { $0?.interrupt() }
    }
}

extension DocumentSnapshot {
    init(proto: ProtoDocument, reference: DocumentReference) {
        self.init(
            reference: reference, fields: proto.fields,
            updateTime: proto.updateTime.map { EmulatorModelTimestamp(microseconds: $0).rfc3339 })
    }
}

extension Query {
    /// The documents in this query's order (its order-bys, then the implicit ones, then the name).
    func sorted(_ documents: [DocumentSnapshot]) -> [DocumentSnapshot] {
        let orders = effectiveOrders
        return documents.sorted { a, b in
            for order in orders {
                let c: Int
                if order.path.isDocumentID {
                    c = ResourcePath.compareNames(a.reference.name, b.reference.name)
                } else {
                    c = Value.compare(a.modelValue(at: order.path) ?? .null, b.modelValue(at: order.path) ?? .null)
                }
                if c != 0 { return order.descending ? c > 0 : c < 0 }
            }
            return false
        }
    }
}
