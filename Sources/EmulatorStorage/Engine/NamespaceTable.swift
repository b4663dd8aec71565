/// The engine's namespaces by ID, read and changed in place.
///
/// A `Dictionary`'s getter hands out a copy of the value, and copying a `NamespaceState`
/// retains each of its twenty-odd references and releases them afterwards: a third of a point
/// read whose nodes are cached. Here `modify` and the `default:` subscript change a state in
/// place, and reads go through a view of it (`view(of:)`): an object holding a copy of the
/// state, made when the engine publishes the table, which a read borrows without copying it.
/// Every change drops the namespace's view, so a view is never stale; a read finding none (a
/// commit reading its own writes) copies the state as before. The plain subscript's getter
/// copies too; it is for tests and rare reads. A namespace keeps its place once stored
/// (clearing it empties its state); there are only ever a handful of them.
struct NamespaceTable: Sendable {
    private var positions: [NamespaceID: Int] = [:]
    private var ids: [NamespaceID] = []
    private var states: [NamespaceState] = []
    /// Per namespace, its state as reads see it, or nil if the state changed since `refreshViews`.
    private var views: [NamespaceView?] = []

    /// The IDs of the namespaces, in the order they were first stored.
    var keys: [NamespaceID] { ids }

    func contains(_ id: NamespaceID) -> Bool { position(of: id) != nil }

    /// A copy of the state of namespace `id`.
    subscript(id: NamespaceID) -> NamespaceState? { position(of: id).map { states[$0] } }

    /// The state of namespace `id`, an empty one stored first if there is none; in place.
    subscript(id: NamespaceID, default value: @autoclosure () -> NamespaceState) -> NamespaceState {
        get { self[id] ?? value() }
        _modify {
            let position = position(of: id) ?? append(value(), for: id)
            views[position] = nil
            yield &states[position]
        }
    }

    /// Stores `state` as namespace `id`'s.
    mutating func store(_ state: consuming NamespaceState, for id: NamespaceID) {
        guard let position = position(of: id) else {
            append(state, for: id)
            return
        }
        states[position] = state
        views[position] = nil
    }

    /// Runs `body` on namespace `id`'s state in place, or returns nil if there is none.
    @discardableResult
    mutating func modify<R>(_ id: NamespaceID, _ body: (inout NamespaceState) -> R) -> R? {
        guard let position = position(of: id) else { return nil }
        views[position] = nil
        return body(&states[position])
    }

    /// Runs `body` on namespace `id`'s state where it is stored, without copying it (a copy
    /// retains and releases each of the state's references); nil if there is none. For reads
    /// of a state that has no view (a commit reading its own writes).
    @inline(__always)
    func withState<R>(_ id: NamespaceID, _ body: (borrowing NamespaceState) -> R) -> R? {
        guard let position = position(of: id) else { return nil }
        return states.withUnsafeBufferPointer { body($0[position]) }
    }

    /// Namespace `id`'s state as reads see it, if it has not changed since `refreshViews`.
    @inline(__always)
    func view(of id: NamespaceID) -> NamespaceView? {
        position(of: id).flatMap { views[$0] }
    }

    /// Makes a view of each state changed since the last call (the engine calls this on the
    /// table it publishes).
    mutating func refreshViews() {
        for position in states.indices where views[position] == nil {
            views[position] = NamespaceView(states[position])
        }
    }

    @inline(__always)
    private func position(of id: NamespaceID) -> Int? {
        // A few IDs are compared faster than one is looked up (which hashes it).
        ids.count <= 8 ? ids.firstIndex(of: id) : positions[id]
    }

    /// Removes namespace `id` and its state; false if there is none. The namespaces after it
    /// move up one place.
    @discardableResult
    mutating func remove(_ id: NamespaceID) -> Bool {
        guard let position = position(of: id) else { return false }
        ids.remove(at: position)
        states.remove(at: position)
        views.remove(at: position)
        positions[id] = nil
        for (index, moved) in ids.enumerated().dropFirst(position) { positions[moved] = index }
        return true
    }

    @discardableResult
    private mutating func append(_ state: consuming NamespaceState, for id: NamespaceID) -> Int {
        positions[id] = states.count
        ids.append(id)
        states.append(state)
        views.append(nil)
        return states.count - 1
    }
}

extension NamespaceTable: Sequence {
    func makeIterator() -> some IteratorProtocol<(key: NamespaceID, value: NamespaceState)> {
        zip(ids, states).lazy.map { (key: $0, value: $1) }.makeIterator()
    }
}

/// A namespace's state held by an object: a read borrows it from there in place, where a
/// state taken from an array or a dictionary is copied.
final class NamespaceView: Sendable {
    let state: NamespaceState
    init(_ state: NamespaceState) { self.state = state }
}
