/// An error that crosses a module boundary: a canonical status code and a human-readable message.
///
/// The code set is gRPC's (`google.rpc.Code`); `code.name` and `code.httpStatus` give the wire forms
/// of the Google API error model (`{"error":{"code":400,"message":"…","status":"INVALID_ARGUMENT"}}`).
///
/// ```swift
/// throw EmulatorError.invalidArgument("Document name must not be empty.")
/// ```
package struct EmulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.name): \(message)" }

    /// A canonical status code. Extensible: unknown numeric values survive a round trip.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The numeric value of `google.rpc.Code`.
        package var rawValue: Int32

        package init(rawValue: Int32) { self.rawValue = rawValue }

        package static let ok = Code(rawValue: 0)
        package static let cancelled = Code(rawValue: 1)
        package static let unknown = Code(rawValue: 2)
        package static let invalidArgument = Code(rawValue: 3)
        package static let deadlineExceeded = Code(rawValue: 4)
        package static let notFound = Code(rawValue: 5)
        package static let alreadyExists = Code(rawValue: 6)
        package static let permissionDenied = Code(rawValue: 7)
        package static let resourceExhausted = Code(rawValue: 8)
        package static let failedPrecondition = Code(rawValue: 9)
        package static let aborted = Code(rawValue: 10)
        package static let outOfRange = Code(rawValue: 11)
        package static let unimplemented = Code(rawValue: 12)
        package static let `internal` = Code(rawValue: 13)
        package static let unavailable = Code(rawValue: 14)
        package static let dataLoss = Code(rawValue: 15)
        package static let unauthenticated = Code(rawValue: 16)

        private static let names: [String] = [
            "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
            "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
            "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
        ]
        private static let httpStatuses: [Int] = [
            200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401,
        ]

        /// The canonical name, e.g. `"INVALID_ARGUMENT"`; `"UNKNOWN"` for values outside the set.
        package var name: String {
            rawValue >= 0 && Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : "UNKNOWN"
        }

        /// The HTTP status of the Google API mapping (`google/rpc/code.proto`), 500 for unknown values.
        package var httpStatus: Int {
            rawValue >= 0 && Int(rawValue) < Self.httpStatuses.count ? Self.httpStatuses[Int(rawValue)] : 500
        }

        /// The code whose canonical name is `name` (`"NOT_FOUND"` → `.notFound`).
        package init?(name: String) {
            guard let index = Self.names.firstIndex(where: { $0.utf8.elementsEqual(name.utf8) }) else { return nil }
            self.rawValue = Int32(index)
        }

        package var description: String { name }
    }
}

extension EmulatorError {
    package static func cancelled(_ message: String) -> EmulatorError { .init(.cancelled, message) }
    package static func unknown(_ message: String) -> EmulatorError { .init(.unknown, message) }
    package static func invalidArgument(_ message: String) -> EmulatorError { .init(.invalidArgument, message) }
    package static func deadlineExceeded(_ message: String) -> EmulatorError { .init(.deadlineExceeded, message) }
    package static func notFound(_ message: String) -> EmulatorError { .init(.notFound, message) }
    package static func alreadyExists(_ message: String) -> EmulatorError { .init(.alreadyExists, message) }
    package static func permissionDenied(_ message: String) -> EmulatorError { .init(.permissionDenied, message) }
    package static func resourceExhausted(_ message: String) -> EmulatorError { .init(.resourceExhausted, message) }
    package static func failedPrecondition(_ message: String) -> EmulatorError { .init(.failedPrecondition, message) }
    package static func aborted(_ message: String) -> EmulatorError { .init(.aborted, message) }
    package static func outOfRange(_ message: String) -> EmulatorError { .init(.outOfRange, message) }
    package static func unimplemented(_ message: String) -> EmulatorError { .init(.unimplemented, message) }
    package static func `internal`(_ message: String) -> EmulatorError { .init(.internal, message) }
    package static func unavailable(_ message: String) -> EmulatorError { .init(.unavailable, message) }
    package static func dataLoss(_ message: String) -> EmulatorError { .init(.dataLoss, message) }
    package static func unauthenticated(_ message: String) -> EmulatorError { .init(.unauthenticated, message) }
}
