import Testing

@testable import EmulatorHTTP

/// A JSON answer to a request without an `Origin` takes CORS fields made once
/// (`HTTPResponse.jsonHeadersForAnyOrigin`); every answer must carry exactly the fields the
/// general decoration gives, in the same order.
@Suite struct CORSJSONHeadersTests {
    static func fields(_ response: HTTPResponse) -> [String] {
        response.headers.fields.map { "\($0.name): \($0.value)" }
    }

    @Test func jsonAnswerWithoutOriginGetsTheSharedFields() {
        let decorated = CORSPolicy().decorate(.json(Array("{}".utf8)), for: HTTPRequest(method: .get, target: "/"))
        #expect(Self.fields(decorated) == ["Content-Type: application/json; charset=utf-8", "Access-Control-Allow-Origin: *"])
        #expect(decorated.bodyBytes == Array("{}".utf8))
    }

    @Test func otherAnswersAreDecoratedAsBefore() {
        var withOrigin = HTTPRequest(method: .get, target: "/")
        withOrigin.headers.add("Origin", "http://app.test")
        #expect(
            Self.fields(CORSPolicy().decorate(.json([]), for: withOrigin)) == [
                "Content-Type: application/json; charset=utf-8", "Access-Control-Allow-Origin: http://app.test",
                "Vary: Origin", "Access-Control-Allow-Credentials: true",
            ])
        var tagged = HTTPResponse.json([])
        tagged.headers.add("ETag", "\"1\"")
        #expect(
            Self.fields(CORSPolicy().decorate(tagged, for: HTTPRequest(method: .get, target: "/"))) == [
                "Content-Type: application/json; charset=utf-8", "ETag: \"1\"", "Access-Control-Allow-Origin: *",
            ])
        // Only allowed origins: a request without one gets no field.
        let closed = CORSPolicy(allowedOrigins: ["http://app.test"])
        #expect(Self.fields(closed.decorate(.json([]), for: HTTPRequest(method: .get, target: "/"))) == [
            "Content-Type: application/json; charset=utf-8"
        ])
        // A fresh JSON answer still has only its own field.
        #expect(Self.fields(.json([])) == ["Content-Type: application/json; charset=utf-8"])
    }
}
