import Foundation

/// One `swift` block of `research/guide-samples.md`, as printed.
struct GuideSample: Sendable, Hashable {
    /// "F" for the Codable (Firestore) guide, "R" for the Realtime Database guide.
    let guide: String
    let number: Int
    let title: String
    let code: String

    /// `F5`, `R9`: the name the placement table and the generated program use.
    var id: String { guide + String(number) }

    /// The samples of the file, in order: each `### N. Title` heading's first `swift` block; the
    /// `## ` heading says which guide (Realtime Database headings mention "Realtime Database").
    static func parse(_ markdown: String) -> [GuideSample] {
        var samples: [GuideSample] = []
        var guide = "F"
        var heading: (Int, String)?
        var block: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if var lines = block {
                if line.hasPrefix("```") {
                    if let (number, title) = heading {
                        samples.append(GuideSample(guide: guide, number: number, title: title, code: lines.joined(separator: "\n")))
                    }
                    heading = nil
                    block = nil
                } else {
                    lines.append(line)
                    block = lines
                }
            } else if line.hasPrefix("## ") {
                guide = line.contains("Realtime Database") ? "R" : "F"
            } else if line.hasPrefix("### ") {
                let text = line.dropFirst(4)
                guard let dot = text.firstIndex(of: "."), let number = Int(text[..<dot]) else { continue }
                heading = (number, String(text[text.index(after: dot)...]).trimmingCharacters(in: .whitespaces))
            } else if line.hasPrefix("```swift"), heading != nil {
                block = []
            }
        }
        return samples
    }
}
