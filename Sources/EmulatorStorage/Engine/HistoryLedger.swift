/// How many bytes of superseded versions each commit left in namespaces that keep history, so
/// the engine can bound history by memory as well as by time: past `limit`, the oldest commits'
/// versions expire early (the horizon moves past them; reads before it fail `.historyExpired`,
/// and the versions are freed as their leaves are next touched, merged or swept).
///
/// An estimate: it counts the values a commit overwrote or deleted key by key (subtree cuts are
/// bounded by time only).
struct HistoryLedger: Sendable {
    private var entries: [(time: CommitTime, bytes: Int)] = []
    private var start = 0
    private(set) var total = 0
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Records what the commit at `time` superseded and forgets what `horizon` already expired;
    /// returns the horizon that keeps the total within `limit` (at least `horizon`).
    mutating func record(time: CommitTime, bytes: Int, horizon: CommitTime) -> CommitTime {
        if bytes > 0 {
            entries.append((time, bytes))
            total += bytes
        }
        var result = horizon
        while start < entries.count, entries[start].time <= horizon || total > limit {
            // Versions superseded at this commit are readable only before it: a horizon at its
            // time lets pruning drop them.
            result = max(result, entries[start].time)
            total -= entries[start].bytes
            start += 1
        }
        if start > 1024, start * 2 > entries.count {
            entries.removeFirst(start)
            start = 0
        }
        return result
    }
}
