import Testing

@testable import EmulatorModel

@Suite("Error codes")
struct EmulatorErrorTests {
    static let codes: [(EmulatorError.Code, Int32, String, Int)] = [
        (.ok, 0, "OK", 200), (.cancelled, 1, "CANCELLED", 499), (.unknown, 2, "UNKNOWN", 500),
        (.invalidArgument, 3, "INVALID_ARGUMENT", 400), (.deadlineExceeded, 4, "DEADLINE_EXCEEDED", 504),
        (.notFound, 5, "NOT_FOUND", 404), (.alreadyExists, 6, "ALREADY_EXISTS", 409),
        (.permissionDenied, 7, "PERMISSION_DENIED", 403), (.resourceExhausted, 8, "RESOURCE_EXHAUSTED", 429),
        (.failedPrecondition, 9, "FAILED_PRECONDITION", 400), (.aborted, 10, "ABORTED", 409),
        (.outOfRange, 11, "OUT_OF_RANGE", 400), (.unimplemented, 12, "UNIMPLEMENTED", 501),
        (.internal, 13, "INTERNAL", 500), (.unavailable, 14, "UNAVAILABLE", 503), (.dataLoss, 15, "DATA_LOSS", 500),
        (.unauthenticated, 16, "UNAUTHENTICATED", 401),
    ]

    @Test("gRPC number, canonical name and HTTP status", arguments: codes)
    func mapping(code: EmulatorError.Code, number: Int32, name: String, http: Int) {
        #expect(code.rawValue == number)
        #expect(code.name == name)
        #expect(code.httpStatus == http)
        #expect(EmulatorError.Code(name: name) == code)
    }

    @Test("unknown codes map to UNKNOWN/500; description shows name and message")
    func unknown() {
        #expect(EmulatorError.Code(rawValue: 99).name == "UNKNOWN")
        #expect(EmulatorError.Code(rawValue: 99).httpStatus == 500)
        #expect(EmulatorError.Code(name: "NOPE") == nil)
        #expect(EmulatorError.notFound("No document to update: x").description == "NOT_FOUND: No document to update: x")
    }
}
