import Foundation

/// Runs blocking work on a new thread (callbacks and polling listeners).
enum BackgroundThread {
    static func run(name: String = "EmulatorClient", _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
