import EmulatorClient
import Foundation
import Testing

@Suite struct FirestoreCodableTests {
    let encoder = Firestore.Encoder()
    let decoder = Firestore.Decoder()
    let db = Firestore(projectID: "demo-codable")

    @Test func bookRoundTripSkipsDocumentIDAndFillsItFromTheReference() throws {
        let book = Book(title: "The Hitchhiker's Guide to the Galaxy", numberOfPages: 816, author: "Douglas Adams")
        let fields = try encoder.encode(book)
        #expect(fields.keys.sorted() == ["author", "numberOfPages", "title"])
        #expect(fields["numberOfPages"] as? Int == 816)
        let decoded = try decoder.decode(Book.self, from: fields, in: db.document("books/hitchhiker"))
        #expect(decoded.id == "hitchhiker")
        #expect(decoded.title == book.title)
    }

    @Test func documentIDWithoutAReferenceThrows() throws {
        let fields: [String: Any] = ["title": "t", "numberOfPages": 1, "author": "a"]
        #expect(throws: FirestoreDecodingError.self) { try decoder.decode(Book.self, from: fields) }
    }

    @Test func nestedURLsAreStringsAndAMissingOptionalIsOmitted() throws {
        let url = try #require(URL(string: "https://example.com/s.png"))
        let with = BookWithCoverImages(
            title: "t", numberOfPages: 1, author: "a", cover: CoverImages(small: url, medium: url, large: url))
        let fields = try encoder.encode(with)
        let cover = try #require(fields["cover"] as? [String: Any])
        #expect(cover["small"] as? String == "https://example.com/s.png")
        let without = try encoder.encode(BookWithCoverImages(title: "t", numberOfPages: 1, author: "a"))
        #expect(without["cover"] == nil)
        let back = try decoder.decode(BookWithCoverImages.self, from: fields, in: db.document("b/x"))
        #expect(back.cover == with.cover)
    }

    @Test func arraysOfStringsAndOfCustomTypes() throws {
        let genre = BookWithGenre(title: "t", genres: ["Science Fiction", "Comedy"])
        let g = try encoder.encode(genre)
        #expect(g["genres"] as? [String] == ["Science Fiction", "Comedy"])
        #expect(try decoder.decode(BookWithGenre.self, from: g) == genre)
        let tags = BookWithTags(title: "t", tags: [Tag(title: "SciFi", color: Color(red: 255, green: 0, blue: 16))])
        let t = try encoder.encode(tags)
        let first = try #require((t["tags"] as? [Any])?.first as? [String: Any])
        #expect(first["color"] as? String == "#FF0010FF")
        #expect(try decoder.decode(BookWithTags.self, from: t) == tags)
    }

    @Test func datesBecomeTimestamps() throws {
        let ada = ProgrammingLanguage(name: "Ada", year: Date(timeIntervalSince1970: -3_976_214_400))
        let fields = try encoder.encode(ada)
        let ts = try #require(fields["year"] as? Timestamp)
        #expect(ts.seconds == -3_976_214_400)
        let back = try decoder.decode(ProgrammingLanguage.self, from: fields, in: db.document("languages/ada"))
        #expect(back.year == ada.year)
        #expect(back.id == "ada")
    }

    @Test func geoPointsEnumsAndCustomKeys() throws {
        let office = Office(name: "HQ", location: GeoPoint(latitude: 52.5, longitude: 13.4))
        let o = try encoder.encode(office)
        #expect(o["location"] as? GeoPoint == GeoPoint(latitude: 52.5, longitude: 13.4))
        let article = try encoder.encode(Article(title: "x", status: .inReview))
        #expect(article["status"] as? String == "in review")
        var custom = CustomKeys(name: "Swift")
        custom.reasonWhyILoveThis = "not mapped"
        let c = try encoder.encode(custom)
        #expect(c.keys.sorted() == ["language_name"])
        let back = try decoder.decode(CustomKeys.self, from: c, in: db.document("l/swift"))
        #expect(back.name == "Swift" && back.reasonWhyILoveThis == "" && back.id == "swift")
    }

    @Test func explicitNullWritesNullWhileOtherOptionalsAreOmitted() throws {
        let fields = try encoder.encode(Profile(name: "n", nickname: nil, motto: nil))
        #expect(fields["nickname"] is NSNull)
        #expect(fields["motto"] == nil)
        let back = try decoder.decode(Profile.self, from: ["name": "n"])
        #expect(back.nickname == nil)
    }

    @Test func nilServerTimestampBecomesTheSentinel() throws {
        let fields = try encoder.encode(Post(text: "hi"))
        #expect(fields["createdAt"] as? FieldValue == FieldValue.serverTimestamp())
        let set = try encoder.encode(Post(text: "hi", createdAt: Date(timeIntervalSince1970: 5)))
        #expect((set["createdAt"] as? Timestamp)?.seconds == 5)
    }

    @Test func topLevelMustBeKeyed() {
        #expect(throws: EncodingError.self) { try encoder.encode([1, 2, 3]) }
        #expect(throws: EncodingError.self) { try encoder.encode("text") }
        #expect(throws: EncodingError.self) { try encoder.encode(Date()) }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteDoublesThrow(_ d: Double) {
        struct S: Codable { var d: Double }
        #expect(throws: EncodingError.self) { try encoder.encode(S(d: d)) }
    }

    @Test func numbersMustFitExactly() throws {
        struct I: Codable { var n: Int }
        struct C: Codable { var n: Int8 }
        struct B: Codable { var n: Bool }
        #expect(throws: DecodingError.self) { try decoder.decode(I.self, from: ["n": 45.55]) }
        #expect(throws: DecodingError.self) { try decoder.decode(C.self, from: ["n": 12345]) }
        #expect(throws: DecodingError.self) { try decoder.decode(I.self, from: ["n": true]) }
        #expect(throws: DecodingError.self) { try decoder.decode(B.self, from: ["n": 1]) }
        #expect(try decoder.decode(I.self, from: ["n": 42]).n == 42)
    }

    @Test func decodingErrorsNameTheProblem() throws {
        do {
            _ = try decoder.decode(Book.self, from: ["title": "t", "author": "a"], in: db.document("b/x"))
            Issue.record("expected keyNotFound")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "numberOfPages")
        }
        do {
            _ = try decoder.decode(Book.self, from: ["title": 3, "author": "a", "numberOfPages": 1], in: db.document("b/x"))
            Issue.record("expected typeMismatch")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["title"])
        }
    }

    @Test func invalidURLStringIsDataCorrupted() {
        struct U: Codable { var u: URL }
        #expect(throws: DecodingError.self) { try decoder.decode(U.self, from: ["u": ""]) }
    }

    @Test func timestampAndGeoPointUseTheirOwnShapeWithJSONEncoder() throws {
        let json = try JSONEncoder().encode(Timestamp(seconds: 1, nanoseconds: 2))
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"seconds\":1") && text.contains("\"nanoseconds\":2"))
        let geo = try JSONDecoder().decode(GeoPoint.self, from: Data(#"{"latitude":1,"longitude":2}"#.utf8))
        #expect(geo == GeoPoint(latitude: 1, longitude: 2))
    }
}
