import Foundation

/// Builds one Swift program from the guides' samples: each sample as printed, placed where its
/// kind of code can live (a declaration at file scope or in its own namespace, a method in a
/// stand-in host class, statements in a method body), the smallest named stand-ins for the app
/// code the guides assume, and a driver that runs the samples against the emulators.
enum GuideSampleProgram {
    enum Placement: Equatable {
        /// Declarations other samples use (the guide's final `Book`, `Color`'s extensions, the view models).
        case fileScope
        /// Declarations that repeat a name another sample declares (the guide's earlier versions).
        case namespace
        /// Methods that use the app's `self.book`, `self.errorMessage` and `db`.
        case hostMembers
        /// Statements, in a synchronous throwing method of a host class.
        case statements
        /// Statements about the guide's plain `Book` (sample F2), in a host class inside F2's namespace.
        case statementsWithPlainBook
        /// Statements that `await`, in an `async throws` method of a host class.
        case asyncStatements
    }

    /// Where each sample goes. A sample missing here fails the test (a new sample needs a decision).
    static let placements: [String: Placement] = [
        "F1": .hostMembers, "F2": .namespace, "F3": .statementsWithPlainBook, "F4": .statementsWithPlainBook, "F5": .fileScope,
        "F6": .hostMembers, "F7": .hostMembers, "F8": .hostMembers, "F9": .hostMembers, "F10": .fileScope,
        "F11": .fileScope, "F12": .namespace, "F13": .namespace, "F14": .namespace, "F15": .fileScope,
        "F16": .statements, "F17": .namespace, "F18": .fileScope, "F19": .namespace, "F20": .fileScope,
        "F21": .fileScope, "F22": .fileScope, "F23": .fileScope, "F24": .fileScope,
        "R1": .statements, "R2": .statements, "R3": .statements, "R4": .statements, "R5": .asyncStatements,
        "R6": .statements, "R7": .statements, "R8": .asyncStatements, "R9": .statements, "R10": .statements,
    ]

    /// The one textual change: sample F4's placeholder comment stands where the app's network
    /// code would be, which leaves `let data =` without a value; a stand-in value takes its place.
    static let placeholders: [String: (String, String)] = [
        "F4": ("/* fetch data from the network */", "fetchedData /* stand-in for the app's network code */")
    ]

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The program's source text.
    static func source(_ samples: [GuideSample]) throws -> String {
        var out = prelude
        for sample in samples {
            guard let placement = placements[sample.id] else {
                throw Failure(description: "no placement for sample \(sample.id) (\(sample.title))")
            }
            // The change the guides' readers make: `import FirebaseFirestore` becomes the prelude's
            // `import EmulatorClient` (imports must be at file scope, so the line is dropped here).
            var code = sample.code.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("import Firebase") }.joined(separator: "\n")
            if let (placeholder, standIn) = placeholders[sample.id] { code = code.replacingOccurrences(of: placeholder, with: standIn) }
            out += "\n// MARK: \(sample.id). \(sample.title)\n"
            switch placement {
            case .fileScope: out += code + "\n"
            case .namespace: out += "enum Sample\(sample.id) {\n\(code)\n}\n"
            case .hostMembers: out += "final class Sample\(sample.id): GuideHost {\n\(code)\n}\n"
            case .statements: out += "final class Sample\(sample.id): GuideHost {\n  func sample() throws {\n\(code)\n  }\n}\n"
            case .statementsWithPlainBook:
                out += "extension SampleF2 {\n final class Sample\(sample.id): GuideHost {\n  func sample() throws {\n\(code)\n  }\n }\n}\n"
            case .asyncStatements:
                out += "final class Sample\(sample.id): GuideHost {\n  func sample() async throws {\n\(code)\n  }\n}\n"
            }
        }
        return out + driver
    }

    // The smallest stand-ins for what the guides assume (app code and Apple frameworks).
    static let prelude = #"""
        import EmulatorClient
        import Foundation

        // MARK: stand-ins for app code and Apple frameworks (not from the guides)

        /// Stand-in for Combine's ObservableObject.
        protocol ObservableObject: AnyObject {}

        /// Stand-in for Combine's @Published: a locked box, so the driver can read what callbacks wrote.
        @propertyWrapper final class Published<Value> {
            private let lock = NSLock()
            private var value: Value
            init(wrappedValue: Value) { value = wrappedValue }
            var wrappedValue: Value {
                get { lock.lock(); defer { lock.unlock() }; return value }
                set { lock.lock(); value = newValue; lock.unlock() }
            }
        }

        /// Stand-in for SwiftUI's Color.
        struct Color: Hashable {
            enum RGBColorSpace { case sRGB }
            var red, green, blue, opacity: Double
            init(_ colorSpace: RGBColorSpace, red: Double, green: Double, blue: Double, opacity: Double) {
                (self.red, self.green, self.blue, self.opacity) = (red, green, blue, opacity)
            }
            /// The app's hex conversion (omitted by the guide).
            var toHex: String {
                "#" + [red, green, blue, opacity].map { String(format: "%02X", Int(($0 * 255).rounded())) }.joined()
            }
        }

        extension String {
            /// The app's hex parsing (omitted by the guide): `#RRGGBBAA`.
            func toRGBA() -> (r: Double, g: Double, b: Double, alpha: Double) {
                let digits = Array(dropFirst())
                func channel(_ i: Int) -> Double {
                    guard digits.count >= i + 2, let v = Int(String(digits[i..<(i + 2)]), radix: 16) else { return 1 }
                    return Double(v) / 255
                }
                return (channel(0), channel(2), channel(4), channel(6))
            }
        }

        /// Stand-in for CoreLocation's CLLocationCoordinate2D.
        struct CLLocationCoordinate2D {
            var latitude: Double
            var longitude: Double
        }

        /// The app's empty Book.
        extension Book { static var empty: Book { Book(title: "", numberOfPages: 0, author: "") } }

        /// The app's colour entry; an Optional, because the guide's listener (written for an SDK
        /// whose `data(as:)` returned an Optional) unwraps what `data(as:)` returns.
        struct ColorValue: Codable {
            @DocumentID var id: String?
            var name: String
            var color: Color
        }
        typealias ColorEntry = ColorValue?
        extension Optional where Wrapped == ColorValue {
            static var empty: ColorEntry { ColorValue(name: "", color: Color(.sRGB, red: 0, green: 0, blue: 0, opacity: 1)) }
        }

        /// Stand-in for Firebase Auth.
        struct Auth {
            struct User { var uid: String }
            static func auth() -> Auth { Auth() }
            var currentUser: User? { User(uid: "ada") }
        }

        /// The app's user model (Realtime Database guide).
        struct User { var username: String }

        /// The app state the guides' methods and statements use (`self.book`, `db`, `ref`, `user`, …).
        class GuideHost {
            @Published var book: Book = .empty
            @Published var errorMessage: String?
            var db = Firestore.firestore()
            var ref: DatabaseReference! = Database.database().reference()
            var postRef: DatabaseReference = Database.database().reference().child("posts/post1")
            var refHandle: DatabaseHandle = 0
            var user = Auth.User(uid: "ada")
            var uid = "ada"
            var userID = "ada"
            var username = "ada"
            var postID = "post1"
            var title = "Hello"
            var body = "First post"
            var office = Office(name: "HQ", location: GeoPoint(latitude: 51.5, longitude: -0.12))
            var fetchedData = Data(#"{"title": "Dune", "numberOfPages": 412, "author": "Frank Herbert"}"#.utf8)
            init() {}
        }

        """#

    // Runs the samples in the guides' order and prints `RESULT key=value` lines for the test.
    static let driver = #"""

        // MARK: driver (not from the guides)

        extension SampleF7 { func run(_ id: String) { fetchBook(documentId: id) } }

        @main @MainActor struct GuideSampleDriver {
            static func report(_ key: String, _ value: String) { print("RESULT \(key)=\(value)") }

            /// Waits up to 5 s for `condition` (callbacks run on the client's callback queue).
            static func wait(_ condition: () -> Bool) async throws {
                for _ in 0..<250 where !condition() { try await Task.sleep(for: .milliseconds(20)) }
            }

            static func main() async throws {
                let hitchhiker = Book(id: "hitchhiker", title: "The Hitchhiker's Guide to the Galaxy", numberOfPages: 816, author: "Douglas Adams")
                SampleF8().updateBook(book: hitchhiker)
                let adder = SampleF9()
                adder.book = Book(title: "Dune", numberOfPages: 412, author: "Frank Herbert")
                adder.addBook(book: adder.book)
                try SampleF2.SampleF3().sample()
                try SampleF2.SampleF4().sample()
                try SampleF16().sample()

                let f1 = SampleF1()
                f1.fetchBook(documentId: "hitchhiker")
                try await wait { f1.book.title != "" }
                report("F1.title", f1.book.title)
                let f6 = SampleF6()
                f6.fetchBook(documentId: "hitchhiker")
                try await wait { f6.book.title != "" }
                report("F6.id", f6.book.id ?? "nil")
                let f7 = SampleF7()
                f7.run("hitchhiker")
                try await wait { f7.book.title != "" }
                report("F7.pages", "\(f7.book.numberOfPages)")

                let found = MappingSimpleTypesViewModel()
                found.fetchAndMap()
                try await wait { found.book.title != "" || found.errorMessage != nil }
                report("F23.hitchhiker", found.book.title)
                let missing = MappingSimpleTypesViewModel()
                missing.fetchAndMapNonExisting()
                try await wait { missing.errorMessage != nil }
                report("F23.does-not-exist", missing.errorMessage ?? "nil")
                let invalid = MappingSimpleTypesViewModel()
                invalid.fetchAndTryMappingInvalidData()
                try await wait { invalid.errorMessage != nil }
                report("F23.invalid-data", invalid.errorMessage ?? "nil")

                let colors = MappingColorsViewModel()
                colors.subscribe()
                try await wait { colors.colorEntries.count == 1 }
                report("F24.before", colors.colorEntries.compactMap { $0?.name }.joined(separator: ","))
                colors.newColor = ColorValue(name: "Green", color: Color(hex: "#00FF00FF"))
                colors.addColorEntry()
                try await wait { colors.colorEntries.count == 2 }
                report("F24.after", colors.colorEntries.compactMap { $0?.name }.sorted().joined(separator: ","))
                colors.unsubscribe()

                try SampleR1().sample()
                try SampleR2().sample()
                try SampleR3().sample()
                let observer = SampleR4()
                try observer.sample()
                report("R4.handle", observer.refHandle > 0 ? "set" : "unset")
                try await SampleR5().sample()
                try SampleR6().sample()
                try SampleR7().sample()
                try await SampleR8().sample()
                let star = SampleR9()
                star.ref = Database.database().reference().child("posts/post1")
                try star.sample()
                try SampleR10().sample()
                var starCount: Any?
                for _ in 0..<250 {
                    let post = try await Database.database().reference().child("posts/post1").getData()
                    starCount = post.childSnapshot(forPath: "starCount").value
                    if starCount as? Int == 2 && !(starCount is Bool) { break }
                    try await Task.sleep(for: .milliseconds(20))
                }
                report("R.starCount", "\(starCount is Bool ? "bool" : "number") \(starCount as? Int ?? -1)")
                report("done", "yes")
            }
        }

        """#
}
