/// The allows that match one document path, kept for the next write of a batch to a sibling
/// document: writes of a batch usually share their collection, and the walk down the match tree
/// then gives the same allows with the same bindings except the document id.
///
/// Built by matching the path with its last segment replaced by a sentinel name. It is used only
/// for a path whose parent segments equal the cached ones and whose last segment is no literal of
/// any `match` pattern (so no literal could have matched or failed on it differently); a walk in
/// which a recursive wildcard took in the last segment is not cached (``isUsable`` is false).
struct FirestoreMatchCache {
    struct Entry {
        var allow: FirestoreAllow
        /// The wildcard bindings (frame slots 2...), with the sentinel where the id goes.
        var bindings: [RulesValue]
        /// Indices into `bindings` that bind the document id.
        var idSlots: [Int]
        /// The condition reads only `request.auth` and bindings other than the id
        /// (``FirestoreRuleset/readsOnlyAuthAndBindings(_:excluding:)``): its outcome is kept.
        var isConstant = false
        /// The outcome for the caller in ``auth``, and the steps it took.
        var outcome: (granted: Bool, reason: String, steps: Int)?
    }

    /// Stands for the document id while matching: no real segment equals it (checked).
    static let sentinel = "\u{0}id\u{0}"

    let parent: [String]
    let methods: FirestoreMethodSet
    var entries: [Entry]
    let isUsable: Bool
    /// The caller whose outcomes the entries keep (nil: signed out).
    private var auth: FirestoreRulesAuth?
    private var hasOutcomes = false

    init(parent: [String], methods: FirestoreMethodSet, entries: [Entry], isUsable: Bool) {
        self.parent = parent
        self.methods = methods
        self.entries = entries
        self.isUsable = isUsable
    }

    /// Forgets the kept outcomes unless they were reached for `caller`.
    mutating func keepOutcomes(for caller: FirestoreRulesAuth?) {
        if hasOutcomes, caller !== auth {
            for i in entries.indices { entries[i].outcome = nil }
            hasOutcomes = false
        }
        auth = caller
    }

    mutating func keep(_ outcome: (granted: Bool, reason: String, steps: Int), at index: Int) {
        entries[index].outcome = outcome
        hasOutcomes = true
    }

    /// Whether this cache stands for `names` (same parent segments) under `methods`.
    func covers(_ names: [String], _ methods: FirestoreMethodSet) -> Bool {
        guard methods == self.methods, names.count == parent.count + 1 else { return false }
        for i in parent.indices where names[i] != parent[i] { return false }
        return true
    }

    /// The frame slots of `entry` for a document whose id is `id`, after `request` and `resource`.
    static func frame(_ entry: Entry, request: RulesValue, resource: RulesValue, id: String) -> [RulesValue] {
        var frame: [RulesValue] = []
        frame.reserveCapacity(2 + entry.bindings.count)
        frame.append(request)
        frame.append(resource)
        frame.append(contentsOf: entry.bindings)
        for slot in entry.idSlots { frame[2 + slot] = .string(id) }
        return frame
    }

    /// Whether `value` mentions the sentinel other than as exactly the id (a recursive binding).
    static func mentionsSentinel(_ value: RulesValue) -> Bool {
        switch value {
        case .string(let s): s.contains(sentinel)
        case .path(let p): p.segments.contains { $0.contains(sentinel) }
        default: false
        }
    }
}
