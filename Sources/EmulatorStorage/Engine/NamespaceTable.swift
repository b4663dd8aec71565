/// The engine's namespaces by ID, read and changed in place.
///
/// Each namespace's state lives in an object of its own (`NamespaceBox`). Copying a table (a
/// snapshot, a commit starting from the head) copies one reference per namespace, where copying
/// the states themselves would retain each of their twenty-odd references and release them
/// afterwards. A read borrows a state from its box without copying it. A change goes to a box
/// only this table holds: `modify` and the `default:` subscript first give the table a box of
/// its own (a copy of the state) when another table shares it, so a published table is never
/// changed, and a commit's later changes to the same namespace happen in place. The plain
/// subscript's getter copies the state; it is for tests and rare reads. A namespace keeps its
/// place once stored (clearing it empties its state); there are only ever a handful of them.
struct NamespaceTable: Sendable {
    private var positions: [NamespaceID: Int] = [:]
    private var ids: [NamespaceID] = []
    private var boxes: [NamespaceBox] = []

    /// The IDs of the namespaces, in the order they were first stored.
    var keys: [NamespaceID] { ids }

    func contains(_ id: NamespaceID) -> Bool { position(of: id) != nil }

    /// A copy of the state of namespace `id`.
    subscript(id: NamespaceID) -> NamespaceState? { position(of: id).map { boxes[$0].state } }

    /// The state of namespace `id`, an empty one stored first if there is none; in place.
    subscript(id: NamespaceID, default value: @autoclosure () -> NamespaceState) -> NamespaceState {
        get { self[id] ?? value() }
        _modify {
            let position = position(of: id) ?? append(value(), for: id)
            makeUnique(position)
            yield &boxes[position].state
        }
    }

    /// Stores `state` as namespace `id`'s.
    mutating func store(_ state: consuming NamespaceState, for id: NamespaceID) {
        guard let position = position(of: id) else {
            append(state, for: id)
            return
        }
        boxes[position] = NamespaceBox(state)
    }

    /// Runs `body` on namespace `id`'s state in place, or returns nil if there is none.
    @discardableResult
    mutating func modify<R>(_ id: NamespaceID, _ body: (inout NamespaceState) -> R) -> R? {
        guard let position = position(of: id) else { return nil }
        makeUnique(position)
        return body(&boxes[position].state)
    }

    /// Gives this table a box of its own at `position` (a copy of the state) when another
    /// table (a published head, a snapshot) shares the box.
    @inline(__always)
    private mutating func makeUnique(_ position: Int) {
        if !isKnownUniquelyReferenced(&boxes[position]) { boxes[position] = NamespaceBox(boxes[position].state) }
    }

    /// Runs `body` on namespace `id`'s state where it is stored, without copying it (a copy
    /// retains and releases each of the state's references); nil if there is none.
    @inline(__always)
    func withState<R>(_ id: NamespaceID, _ body: (borrowing NamespaceState) -> R) -> R? {
        guard let position = position(of: id) else { return nil }
        return Unmanaged.passUnretained(boxes[position])._withUnsafeGuaranteedRef { body($0.state) }
    }

    /// The box holding namespace `id`'s state (for tests of what a copy of the table shares).
    func box(of id: NamespaceID) -> NamespaceBox? { position(of: id).map { boxes[$0] } }

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
        boxes.remove(at: position)
        positions[id] = nil
        for (index, moved) in ids.enumerated().dropFirst(position) { positions[moved] = index }
        return true
    }

    @discardableResult
    private mutating func append(_ state: consuming NamespaceState, for id: NamespaceID) -> Int {
        positions[id] = boxes.count
        ids.append(id)
        boxes.append(NamespaceBox(state))
        return boxes.count - 1
    }
}

extension NamespaceTable: Sequence {
    func makeIterator() -> some IteratorProtocol<(key: NamespaceID, value: NamespaceState)> {
        zip(ids, boxes).lazy.map { (key: $0, value: $1.state) }.makeIterator()
    }
}

/// A namespace's state held by an object, so that tables share it by reference and a read
/// borrows it in place (a state taken from an array or a dictionary is copied).
///
/// Safety of `@unchecked Sendable`: `state` is changed only through a `NamespaceTable` that
/// holds the only reference to the box (`isKnownUniquelyReferenced`, checked by `makeUnique`
/// before every change), and such a table belongs to one thread (a commit's, under the engine's
/// commit lock). A box any other table or thread can reach (a published head, a snapshot) is
/// never changed again; the table copies it first.
final class NamespaceBox: @unchecked Sendable {
    // No dynamic exclusivity check: only the one owner changes the state (see above).
    @exclusivity(unchecked) var state: NamespaceState
    init(_ state: consuming NamespaceState) { self.state = state }
}
