import EmulatorSupport

/// `firebase-export-metadata.json`: which emulators a snapshot holds and where.
///
/// Written as `JSON.stringify(metadata, undefined, 2)` writes it, keys in this order:
/// ```json
/// {
///   "version": "15.0.0",
///   "firestore": {
///     "version": "1.22.0",
///     "path": "firestore_export",
///     "metadata_file": "firestore_export/firestore_export.overall_export_metadata"
///   },
///   "database": {
///     "version": "4.11.2",
///     "path": "database_export"
///   }
/// }
/// ```
/// Import reads only `path` and `metadata_file` (relative to the snapshot directory, or absolute).
package struct ExportMetadata: Sendable, Equatable {
    package static let fileName = "firebase-export-metadata.json"

    package struct Section: Sendable, Equatable {
        package var version: String
        package var path: String
        /// Firestore only: the overall metadata file.
        package var metadataFile: String?

        package init(version: String, path: String, metadataFile: String? = nil) {
            self.version = version
            self.path = path
            self.metadataFile = metadataFile
        }
    }

    package var version: String
    package var firestore: Section?
    package var database: Section?

    package init(version: String, firestore: Section? = nil, database: Section? = nil) {
        self.version = version
        self.firestore = firestore
        self.database = database
    }

    /// The file's bytes (no trailing newline, as `JSON.stringify` writes).
    package func encoded() -> [UInt8] {
        var members = [JSONMember("version", .string(version))]
        if let firestore {
            var section = [JSONMember("version", .string(firestore.version)), JSONMember("path", .string(firestore.path))]
            if let file = firestore.metadataFile { section.append(JSONMember("metadata_file", .string(file))) }
            members.append(JSONMember("firestore", .object(section)))
        }
        if let database {
            members.append(JSONMember(
                "database", .object([JSONMember("version", .string(database.version)), JSONMember("path", .string(database.path))])))
        }
        return JSONWriter.encode(.object(members), pretty: true)
    }

    /// Parses the file; unknown sections (auth, storage) are ignored.
    package init(parsing bytes: [UInt8], file: String) throws(SnapshotError) {
        let json: JSONValue
        do throws(JSONError) {
            json = try JSONReader.parse(bytes)
        } catch {
            throw SnapshotError(.corrupted, "invalid JSON: \(error)", file: file)
        }
        guard case .object = json else { throw SnapshotError(.corrupted, "expected a JSON object", file: file) }
        func text(_ value: JSONValue?) -> String? {
            if case .string(let s)? = value { return s }
            return nil
        }
        func section(_ name: String) throws(SnapshotError) -> Section? {
            guard let value = json[member: name], value != .null else { return nil }
            guard case .object = value, let path = text(value[member: "path"]) else {
                throw SnapshotError(.corrupted, "\"\(name)\" must be an object with a \"path\" string", file: file)
            }
            return Section(version: text(value[member: "version"]) ?? "", path: path, metadataFile: text(value[member: "metadata_file"]))
        }
        version = text(json[member: "version"]) ?? ""
        firestore = try section("firestore")
        database = try section("database")
        if let firestore, firestore.metadataFile == nil {
            throw SnapshotError(.corrupted, "\"firestore\" needs a \"metadata_file\"", file: file)
        }
    }
}
