import EmulatorSupport

/// `.firebaserc`: project aliases, the default project and deploy targets.
package struct FirebaseRC: Sendable, Equatable {
    /// `projects`: alias → project ID (`default` included).
    package var projects: [String: String] = [:]
    /// `targets.<project>.database.<target>` → instances.
    package var databaseTargets: [String: [String: [String]]] = [:]

    package init() {}

    /// Parses `.firebaserc`; wrong shapes are ignored (the file is the CLI's own, not the user's).
    package static func parse(_ bytes: [UInt8], file: String) throws(ConfigurationError) -> FirebaseRC {
        let root: JSONValue
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            throw ConfigurationError(.malformedJSON, error.message, file: file, line: error.line, column: error.column)
        }
        var rc = FirebaseRC()
        if case .object(let members)? = root[member: "projects"] {
            for member in members {
                if case .string(let id) = member.value { rc.projects[member.name] = id }
            }
        }
        if case .object(let projects)? = root[member: "targets"] {
            for project in projects {
                guard case .object(let targets)? = project.value[member: "database"] else { continue }
                var map: [String: [String]] = [:]
                for target in targets {
                    guard case .array(let items) = target.value else { continue }
                    map[target.name] = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
                }
                rc.databaseTargets[project.name] = map
            }
        }
        return rc
    }

    /// The project to emulate: `--project` (an ID or an alias), else `projects.default`, else
    /// `demo-no-project`, as the official CLI decides.
    package func resolveProject(_ flag: String?) -> String {
        if let flag, !flag.isEmpty { return projects[flag] ?? flag }
        return projects["default"] ?? "demo-no-project"
    }
}
