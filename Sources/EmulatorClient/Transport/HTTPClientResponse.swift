/// One HTTP/1.1 response as the client received it.
struct HTTPClientResponse: Sendable {
    var status: Int
    /// Header names lowercased, values trimmed, in arrival order.
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// The first value of header `name` (give it lowercased).
    func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}
