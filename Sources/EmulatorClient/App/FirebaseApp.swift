import Synchronization

/// A configured Firebase app: the options ``Firestore/firestore()`` and ``Database/database()``
/// take their project and database URL from.
///
/// ```swift
/// FirebaseApp.configure(options: FirebaseOptions(projectID: "demo-books"))
/// let db = Firestore.firestore()
/// db.useEmulator(withHost: "127.0.0.1", port: 8080)
/// ```
public final class FirebaseApp: Sendable {
    /// The name of the app `configure()` and `configure(options:)` make.
    public static let defaultName = "__FIRAPP_DEFAULT"

    public let name: String
    public let options: FirebaseOptions

    private static let apps = Mutex<[String: FirebaseApp]>([:])

    private init(name: String, options: FirebaseOptions) {
        self.name = name
        self.options = options
    }

    /// Configures the default app from the environment (`GCLOUD_PROJECT`); Apple platforms read
    /// `GoogleService-Info.plist` here instead. Configuring the same name twice keeps the first.
    public static func configure() {
        configure(options: .fromEnvironment())
    }

    /// Configures the default app with `options`.
    public static func configure(options: FirebaseOptions) {
        configure(name: defaultName, options: options)
    }

    /// Configures a named app.
    public static func configure(name: String, options: FirebaseOptions) {
        apps.withLock { apps in
            if apps[name] == nil { apps[name] = FirebaseApp(name: name, options: options) }
        }
    }

    /// The default app, or nil before `configure`.
    public static func app() -> FirebaseApp? { app(name: defaultName) }

    public static func app(name: String) -> FirebaseApp? { apps.withLock { $0[name] } }

    /// Every configured app by name.
    public static var allApps: [String: FirebaseApp]? {
        let all = apps.withLock { $0 }
        return all.isEmpty ? nil : all
    }

    /// Removes this app; instances made from it keep working. `completion` gets whether it was configured.
    public func delete(_ completion: @escaping (Bool) -> Void) {
        let removed = FirebaseApp.apps.withLock { apps -> Bool in
            guard apps[name] === self else { return false }
            apps[name] = nil
            return true
        }
        DefaultInstances.forget(appName: name)
        completion(removed)
    }
}
