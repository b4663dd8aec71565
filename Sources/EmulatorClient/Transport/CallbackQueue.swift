import Dispatch

/// The serial queue an instance calls user code on (completion blocks, listeners, observers),
/// as the Apple SDKs call theirs on one dispatch queue: callbacks of one instance never overlap,
/// so the guides' view models may mutate their own state from them.
final class CallbackQueue: Sendable {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label) }

    /// Calls `body` on the queue.
    func deliver(_ body: @escaping @Sendable () -> Void) { queue.async(execute: body) }
}

/// A user closure carried to the callback queue.
///
/// `@unchecked Sendable` because the Apple SDKs' blocks are not `@Sendable` (the guides' view
/// models capture `self`), so ours are not either. It is safe as the SDKs are: the library never
/// calls the closure itself from two threads at once — only from its instance's serial
/// ``CallbackQueue`` — and never reads what it captured.
struct UserCallback<Function>: @unchecked Sendable {
    let call: Function
    init(_ call: Function) { self.call = call }
}
