/// A latitude/longitude pair (degrees), stored as a Firestore geo point.
///
/// ```swift
/// let office = GeoPoint(latitude: 52.52, longitude: 13.40)
/// ```
public struct GeoPoint: Sendable, Hashable, Codable {
    public let latitude: Double
    public let longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}
