/// The versions of one document id, oldest first. A version with nil `bytes` is a deletion.
///
/// Versions older than the retention window are dropped on write, keeping the newest of them so a
/// read at any retained time still finds its state.
struct DocumentHistory: Sendable {
    struct Version: Sendable {
        var time: Int64
        /// ValueCodec bytes of the fields; nil when the document was deleted at `time`.
        var bytes: [UInt8]?
        var createTime: Int64
    }

    let id: String
    var versions: [Version] = []

    init(id: String) { self.id = id }

    /// The newest version written at or before `time`.
    func version(at time: Int64) -> Version? {
        guard let last = versions.last else { return nil }
        if last.time <= time { return last }
        var i = versions.count - 1
        while i >= 0 {
            if versions[i].time <= time { return versions[i] }
            i -= 1
        }
        return nil
    }

    /// The live version at `time` (nil if missing or deleted).
    func live(at time: Int64) -> Version? {
        guard let v = version(at: time), v.bytes != nil else { return nil }
        return v
    }

    /// Appends a version, dropping history older than `retainAfter` (keeping one to answer reads there).
    mutating func append(_ version: Version, retainAfter: Int64) {
        versions.append(version)
        var drop = 0
        while drop + 1 < versions.count && versions[drop + 1].time <= retainAfter { drop += 1 }
        if drop > 0 { versions.removeFirst(drop) }
    }
}
