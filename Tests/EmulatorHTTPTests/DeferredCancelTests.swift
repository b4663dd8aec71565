import EmulatorHTTP
import Synchronization
import Testing

/// `HTTPDeferredResponse.onCancel`: the producer learns that the transport gave the exchange up.
@Suite struct DeferredCancelTests {
    @Test func cancelRunsTheHandlerOnce() {
        let deferred = HTTPDeferredResponse()
        let runs = Mutex(0)
        deferred.onCancel { runs.withLock { $0 += 1 } }
        deferred.cancel()
        deferred.cancel()
        #expect(runs.withLock { $0 } == 1)
        // Registered after the cancel: runs at once.
        deferred.onCancel { runs.withLock { $0 += 1 } }
        #expect(runs.withLock { $0 } == 2)
    }

    @Test func aCompletedResponseIsNotCancelled() {
        let deferred = HTTPDeferredResponse()
        let runs = Mutex(0)
        deferred.onCancel { runs.withLock { $0 += 1 } }
        deferred.complete(.json(Array("{}".utf8)))
        deferred.cancel()
        #expect(runs.withLock { $0 } == 0)
    }
}
