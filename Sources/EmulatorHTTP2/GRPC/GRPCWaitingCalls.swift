/// The calls of one connection whose requests are complete, waiting to run, oldest first: a
/// first-in, first-out queue of closures taken in O(1) amortised, as EmulatorSupport's
/// `FIFOQueue` does. Not that generic queue: used across the module boundary it runs
/// unspecialised, and queueing and taking each call's closure cost more there (about 1,600
/// instructions a call) than the rest of the call's bookkeeping on this side.
struct GRPCWaitingCalls {
    private var storage: [(@Sendable () -> Void)?] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }

    mutating func append(_ call: @escaping @Sendable () -> Void) { storage.append(call) }

    /// The oldest call, removed; nil when none waits.
    mutating func popFirst() -> (@Sendable () -> Void)? {
        guard head < storage.count else { return nil }
        let call = storage[head]
        storage[head] = nil
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.count <= 1024)
            head = 0
        } else if head >= 64 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return call
    }

    mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}
