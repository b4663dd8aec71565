import EmulatorClient
import Foundation

struct Book: Codable, Equatable {
    @DocumentID var id: String?
    var title: String
    var numberOfPages: Int
    var author: String
}

struct CoverImages: Codable, Equatable {
    var small: URL
    var medium: URL
    var large: URL
}

struct BookWithCoverImages: Codable, Equatable {
    @DocumentID var id: String?
    var title: String
    var numberOfPages: Int
    var author: String
    var cover: CoverImages?
}

struct BookWithGenre: Codable, Equatable {
    var title: String
    var genres: [String]
}

struct Tag: Codable, Equatable {
    var title: String
    var color: Color
}

struct BookWithTags: Codable, Equatable {
    var title: String
    var tags: [Tag]
}

struct ProgrammingLanguage: Codable, Equatable {
    @DocumentID var id: String?
    var name: String
    var year: Date
}

struct Office: Codable, Equatable {
    @DocumentID var id: String?
    var name: String
    var location: GeoPoint
}

enum Status: String, Codable { case draft, inReview = "in review", approved, published }

struct Article: Codable, Equatable {
    var title: String
    var status: Status
}

struct CustomKeys: Codable, Equatable {
    @DocumentID var id: String?
    var name: String
    var reasonWhyILoveThis: String = ""

    enum CodingKeys: String, CodingKey {
        case id
        case name = "language_name"
    }
}

struct Profile: Codable, Equatable {
    var name: String
    @ExplicitNull var nickname: String?
    var motto: String?
}

struct Post: Codable {
    var text: String
    @ServerTimestamp var createdAt: Date?
}

/// A colour stored as a CSS hex string `#RRGGBBAA` through a single-value container.
struct Color: Codable, Equatable {
    var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8

    init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard text.count == 9, text.first == "#", let n = UInt32(text.dropFirst(), radix: 16) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not #RRGGBBAA"))
        }
        self.init(red: UInt8(n >> 24), green: UInt8((n >> 16) & 255), blue: UInt8((n >> 8) & 255), alpha: UInt8(n & 255))
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(String(format: "#%02X%02X%02X%02X", red, green, blue, alpha))
    }
}

struct ColorEntry: Codable, Equatable {
    @DocumentID var id: String?
    var name: String
    var color: Color
}
