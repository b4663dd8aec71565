/// Thrown by `Firestore.Decoder` for values it cannot decode in this context.
public enum FirestoreDecodingError: Error, Sendable, Equatable {
    case decodingIsNotSupported(String)
    case fieldNameConflict(String)
}

/// Thrown when a Firestore-only type is encoded by another encoder.
public enum FirestoreEncodingError: Error, Sendable, Equatable {
    case encodingIsNotSupported(String)
}
