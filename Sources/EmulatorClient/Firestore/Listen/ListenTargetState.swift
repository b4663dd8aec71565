import EmulatorModel
import EmulatorProtobuf

/// One decoded `ListenResponse`, reduced to what a one-target listener uses.
enum ListenEvent: Equatable {
    /// `TargetChange`: type (NO_CHANGE 0, ADD 1, REMOVE 2, CURRENT 3, RESET 4), target ids (empty:
    /// every target), and the cause of a REMOVE (a google.rpc.Status code and message).
    /// `resumeToken` and `readTime` (microseconds) when the server sent them.
    case targetChange(
        type: Int32, targetIDs: [Int32], causeCode: Int32?, causeMessage: String, resumeToken: [UInt8]? = nil,
        readTime: Int64? = nil)
    /// `DocumentChange`: the document now matches `targetIDs` and no longer matches `removedTargetIDs`.
    case documentChange(ProtoDocument, targetIDs: [Int32], removedTargetIDs: [Int32])
    /// `DocumentDelete` / `DocumentRemove`: the document left these targets (empty: all).
    case documentGone(name: String, removedTargetIDs: [Int32])
    /// `ExistenceFilter`: how many documents the server counts in the target now.
    case existenceFilter(targetID: Int32, count: Int32)
    /// Anything else (unknown fields).
    case ignored

    static func decode(_ bytes: [UInt8]) throws(EmulatorError) -> ListenEvent {
        var r = ProtoReader(bytes)
        var event = ListenEvent.ignored
        while let (f, w) = try r.next() {
            switch f {
            case 2:
                try r.expect(w, .lengthDelimited, f)
                var t = try r.message()
                var type: Int32 = 0
                var ids: [Int32] = []
                var code: Int32?
                var message = ""
                var token: [UInt8]?
                var readTime: Int64?
                while let (tf, tw) = try t.next() {
                    switch tf {
                    case 1: try t.expect(tw, .varint, tf); type = try t.int32()
                    case 4: try t.expect(tw, .lengthDelimited, tf); token = try t.bytes()
                    case 6:
                        try t.expect(tw, .lengthDelimited, tf)
                        var ts = try t.message()
                        var seconds: Int64 = 0
                        var nanos: Int64 = 0
                        while let (sf, sw) = try ts.next() {
                            switch sf {
                            case 1: try ts.expect(sw, .varint, sf); seconds = try ts.int64()
                            case 2: try ts.expect(sw, .varint, sf); nanos = Int64(try ts.int32())
                            default: try ts.skip(sw)
                            }
                        }
                        readTime = seconds &* 1_000_000 &+ nanos / 1000
                    case 2: try t.repeatedInt32(tw, into: &ids)
                    case 3:
                        try t.expect(tw, .lengthDelimited, tf)
                        var s = try t.message()
                        code = 0
                        while let (sf, sw) = try s.next() {
                            switch sf {
                            case 1: try s.expect(sw, .varint, sf); code = try s.int32()
                            case 2: try s.expect(sw, .lengthDelimited, sf); message = try s.string()
                            default: try s.skip(sw)
                            }
                        }
                    default: try t.skip(tw)
                    }
                }
                event = .targetChange(
                    type: type, targetIDs: ids, causeCode: code, causeMessage: message, resumeToken: token, readTime: readTime)
            case 3:
                try r.expect(w, .lengthDelimited, f)
                var c = try r.message()
                var document: ProtoDocument?
                var ids: [Int32] = []
                var removed: [Int32] = []
                while let (cf, cw) = try c.next() {
                    switch cf {
                    case 1: try c.expect(cw, .lengthDelimited, cf); document = try ProtoDocument(c.message())
                    case 5: try c.repeatedInt32(cw, into: &ids)
                    case 6: try c.repeatedInt32(cw, into: &removed)
                    default: try c.skip(cw)
                    }
                }
                guard let document else { throw .invalidArgument("DocumentChange without a document") }
                event = .documentChange(document, targetIDs: ids, removedTargetIDs: removed)
            case 4, 6:
                try r.expect(w, .lengthDelimited, f)
                var c = try r.message()
                var name = ""
                var removed: [Int32] = []
                let removedField = f == 4 ? 6 : 2
                while let (cf, cw) = try c.next() {
                    switch cf {
                    case 1: try c.expect(cw, .lengthDelimited, cf); name = try c.string()
                    case removedField: try c.repeatedInt32(cw, into: &removed)
                    default: try c.skip(cw)
                    }
                }
                event = .documentGone(name: name, removedTargetIDs: removed)
            case 5:
                try r.expect(w, .lengthDelimited, f)
                var c = try r.message()
                var id: Int32 = 0
                var count: Int32 = 0
                while let (cf, cw) = try c.next() {
                    switch cf {
                    case 1: try c.expect(cw, .varint, cf); id = try c.int32()
                    case 2: try c.expect(cw, .varint, cf); count = try c.int32()
                    default: try c.skip(cw)  // unchanged_names: a bloom filter this client does not use
                    }
                }
                event = .existenceFilter(targetID: id, count: count)
            default:
                try r.skip(w)
            }
        }
        return event
    }
}

/// The documents of one listened target, kept from the stream's changes; a snapshot is due when
/// the target is CURRENT and the server marks a consistent point (a global NO_CHANGE). It keeps
/// the latest resume token, which a reconnecting listener sends back (`Target.resume_token`).
struct ListenTargetState {
    enum Action: Equatable {
        /// Every document of the target now, in no particular order, and the read time
        /// (microseconds) they are consistent at.
        case snapshot([ProtoDocument], readTime: Int64?)
        /// The server removed the target: the google.rpc code and message.
        case failed(code: Int32, message: String)
        /// The server counts a different number of documents than this state keeps (an existence
        /// filter): the state is emptied and its resume token dropped, so the listener must add
        /// the target again from nothing to get the full result.
        case resync
    }

    let targetID: Int32
    private(set) var documents: [String: ProtoDocument] = [:]
    private(set) var isCurrent = false
    /// The last resume token the server sent for this target (or globally).
    private(set) var resumeToken: [UInt8]?

    /// The stream broke: the next one starts by adding the target again (with the resume token).
    mutating func disconnected() { isCurrent = false }

    init(targetID: Int32) { self.targetID = targetID }

    mutating func apply(_ event: ListenEvent) -> Action? {
        switch event {
        case .targetChange(let type, let ids, let code, let message, let token, let readTime):
            let mine = ids.isEmpty || ids.contains(targetID)
            if mine, let token, type != 2 { resumeToken = token }
            switch type {
            case 0 where ids.isEmpty && isCurrent:
                return .snapshot(documents.values.sorted { $0.name < $1.name }, readTime: readTime)
            case 2 where mine:
                return .failed(code: code ?? 1, message: message.isEmpty ? "The listen target was removed" : message)
            case 3 where mine: isCurrent = true
            case 4 where mine:
                documents.removeAll()
                isCurrent = false
            default: break
            }
        case .documentChange(let document, let ids, let removed):
            if ids.contains(targetID) {
                documents[document.name] = document
            } else if removed.contains(targetID) {
                documents[document.name] = nil
            }
        case .documentGone(let name, let removed):
            if removed.isEmpty || removed.contains(targetID) { documents[name] = nil }
        case .existenceFilter(let id, let count):
            if id == targetID, Int(count) != documents.count {
                self = ListenTargetState(targetID: targetID)
                return .resync
            }
        case .ignored: break
        }
        return nil
    }
}
