import EmulatorSupport

/// The emulator's own endpoints (not part of the Firestore API), for test set-up.
extension Firestore {
    /// Replaces the project's rules (`PUT /emulator/v1/projects/{p}:securityRules`); a source that
    /// does not compile throws with the emulator's issues.
    package func loadEmulatorRules(_ source: String) async throws {
        let body = JSONValue.object([
            JSONMember(
                "rules", .object([JSONMember("files", .array([.object([JSONMember("content", .string(source))])]))]))
        ])
        let target = "/emulator/v1/projects/" + PercentQuery.encode(projectID) + ":securityRules"
        _ = try await blocking { try self.call("PUT", target, body: body) }
    }

    /// Deletes every document of this database (`DELETE /emulator/v1/…/documents`).
    package func clearEmulatorData() async throws {
        let target = "/emulator/v1/" + Firestore.urlPath(documentsName)
        _ = try await blocking { try self.call("DELETE", target) }
    }
}
