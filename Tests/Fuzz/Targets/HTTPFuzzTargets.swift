import EmulatorHTTP

extension FuzzTargets {
    static let httpTargets: [FuzzTarget] = [
        FuzzTarget("http1", "HTTP/1.1 request parser, input in pieces") { input in
            var parser = HTTP1RequestParser(limits: HTTP1Limits())
            for piece in FuzzPieces.split(input) {
                parser.append(piece)
                while let event = parser.next() {
                    if case .failure = event { return }
                }
            }
        },
        FuzzTarget("websocket", "WebSocket frame decoder and message assembler") { input in
            var decoder = WebSocketFrameDecoder(maxFrameBytes: 1 << 20, requireMasked: true)
            var assembler = WebSocketMessageAssembler(maxMessageBytes: 1 << 20)
            for piece in FuzzPieces.split(input) {
                decoder.append(piece)
                while let event = decoder.next() {
                    switch event {
                    case .frame(let frame):
                        if case .failure = assembler.add(frame) { return }
                    case .failure: return
                    }
                }
            }
        },
        FuzzTarget("webchannel-form", "WebChannel forward-channel form body and chunk splitter") { input in
            if let form = try? WebChannelForm(parsing: input) {
                _ = form.header("Authorization")
                for message in form.messages { _ = WebChannelFrame.utf16Length(message) }
            }
            _ = WebChannelFrame.split(input)
        },
        FuzzTarget("percent", "percent-decoding of targets and query items") { input in
            let text = String(decoding: input, as: UTF8.self)
            _ = PercentEncoding.decode(text)
            _ = PercentEncoding.decode(text, plusIsSpace: true)
            _ = HTTPRequest(method: .get, target: text).queryItems
        },
    ]
}
