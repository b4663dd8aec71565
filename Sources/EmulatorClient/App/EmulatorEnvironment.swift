import Foundation

/// The variables the official emulator suite sets for the programs it runs (`emulators:exec`)
/// and that the official SDKs read.
enum EmulatorEnvironment {
    static var projectID: String? {
        value("GCLOUD_PROJECT") ?? value("GOOGLE_CLOUD_PROJECT")
    }

    /// `FIRESTORE_EMULATOR_HOST` as host and port.
    static var firestoreHost: (host: String, port: Int)? { address("FIRESTORE_EMULATOR_HOST") }

    /// `FIREBASE_DATABASE_EMULATOR_HOST` as host and port.
    static var databaseHost: (host: String, port: Int)? { address("FIREBASE_DATABASE_EMULATOR_HOST") }

    private static func value(_ name: String) -> String? {
        guard let v = ProcessInfo.processInfo.environment[name], !v.isEmpty else { return nil }
        return v
    }

    /// `host:port`, `[v6]:port`; nil when the port is missing or not a number.
    static func address(_ name: String) -> (host: String, port: Int)? {
        guard let text = value(name) else { return nil }
        return parse(text)
    }

    static func parse(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        let host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }
}
