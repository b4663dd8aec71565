import EmulatorModel

/// The one rules check every RTDB read, stream and write goes through, whatever the transport
/// (REST and Server-Sent Events today; the WebSocket protocol calls the same): the admin
/// (`owner`) passes, everyone else asks the namespace's compiled rules.
extension DatabaseAuth {
    /// May this caller read `path` with `query` given `data`?
    func mayRead(
        _ path: DatabasePath, query: DatabaseQuery, now: Int64, data: any DatabaseDataSource, rules: any DatabaseRules
    ) -> Bool {
        isAdmin || rules.canRead(path, query: query, auth: self, now: now, data: data)
    }

    /// May this caller replace each of `locations`, turning `data` into `newData`?
    func mayWrite(
        _ locations: [DatabasePath], now: Int64, data: any DatabaseDataSource, newData: any DatabaseDataSource,
        rules: any DatabaseRules
    ) -> Bool {
        isAdmin || rules.canWrite(locations, auth: self, now: now, data: data, newData: newData)
    }
}
