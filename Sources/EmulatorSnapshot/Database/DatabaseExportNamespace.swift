/// One Realtime Database namespace in a snapshot: `database_export/<name>.json` holds the
/// namespace root in export format (`.priority`/`.value` kept, never arrays; `null` when empty),
/// the same JSON the official emulator writes and reads.
///
/// The JSON is either given whole (`json`) or streamed (`stream`): the exporter hands `stream`
/// a function that appends bytes to the file, so a large namespace never sits in memory at once.
///
/// ```swift
/// DatabaseExportNamespace(name: "demo-default-rtdb", json: Array(#"{"a":1}"#.utf8))
/// DatabaseExportNamespace(name: "demo-default-rtdb") { write throws(SnapshotError) in try write(Array("null".utf8)) }
/// ```
package struct DatabaseExportNamespace: Sendable {
    /// Writes the namespace's JSON by calling its argument with consecutive pieces.
    package typealias Stream = @Sendable (_ write: ([UInt8]) throws(SnapshotError) -> Void) throws(SnapshotError) -> Void

    package var name: String
    /// Writes the JSON document, in pieces.
    package var stream: Stream

    package init(name: String, json: [UInt8]) {
        self.name = name
        self.stream = { write throws(SnapshotError) in try write(json) }
    }

    package init(name: String, stream: @escaping Stream) {
        self.name = name
        self.stream = stream
    }
}
