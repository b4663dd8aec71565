extension StringProtocol {
    /// The text without leading and trailing characters from `set`.
    func trimming(_ set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
