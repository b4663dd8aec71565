import Dispatch

/// Runs blocking socket work on Dispatch's global (non-cooperative) threads, so `async` callers
/// never park a thread of Swift's cooperative pool while waiting for the emulator.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try body() })
        }
    }
}
