/// "Did you mean …?" for a mistyped command or option: the candidate with the fewest edits
/// (insertions, deletions, substitutions; a swap of two neighbours counts as one), when it is close
/// enough to be a typo.
///
/// ```swift
/// Suggestion.nearest(to: "strat", in: ["start", "exec", "export"])   // "start"
/// Suggestion.nearest(to: "--iport", in: ["--import", "--only"])     // "--import"
/// ```
enum Suggestion {
    static func nearest(to word: String, in candidates: [String]) -> String? {
        let typed = Array(word.lowercased().utf8)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased().utf8))
            if distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        // A typo changes a few characters: at most 2, or a third of a longer word.
        let allowed = max(2, typed.count / 3)
        return best.distance <= allowed && best.distance < typed.count ? best.name : nil
    }

    /// Optimal string alignment distance between two byte strings.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
