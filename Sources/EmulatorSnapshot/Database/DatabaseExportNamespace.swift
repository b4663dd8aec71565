/// One Realtime Database namespace in a snapshot: `database_export/<name>.json` holds the
/// namespace root in export format (`.priority`/`.value` kept, never arrays; `null` when empty),
/// the same JSON the official emulator writes and reads.
package struct DatabaseExportNamespace: Sendable, Equatable {
    package var name: String
    /// The JSON document, already encoded.
    package var json: [UInt8]

    package init(name: String, json: [UInt8]) {
        self.name = name
        self.json = json
    }
}
