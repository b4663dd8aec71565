import EmulatorModel
import EmulatorSupport

/// One Server-Sent Event of a database stream, encoded as the REST protocol sends it:
/// `event: put\ndata: {"path":"/a","data":…}\n\n` (compact JSON, `path` before `data`).
enum DatabaseEvent {
    case put(path: DatabasePath, data: JSONValue)
    case patch(path: DatabasePath, data: JSONValue)
    case keepAlive
    case cancel(String)

    var bytes: [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .put(let path, let data), .patch(let path, let data):
            let isPut = if case .put = self { true } else { false }
            out.append(contentsOf: (isPut ? "event: put\ndata: {\"path\":" : "event: patch\ndata: {\"path\":").utf8)
            var writer = JSONWriter()
            writer.appendString(path.description)
            out.append(contentsOf: writer.bytes)
            out.append(contentsOf: ",\"data\":".utf8)
            out.append(contentsOf: JSONWriter.encode(data))
            out.append(contentsOf: "}\n\n".utf8)
        case .keepAlive:
            out.append(contentsOf: "event: keep-alive\ndata: null\n\n".utf8)
        case .cancel(let reason):
            out.append(contentsOf: "event: cancel\ndata: ".utf8)
            out.append(contentsOf: JSONWriter.encode(.string(reason)))
            out.append(contentsOf: "\n\n".utf8)
        }
        return out
    }
}
