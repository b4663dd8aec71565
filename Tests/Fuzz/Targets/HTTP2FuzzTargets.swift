import EmulatorHTTP2

extension FuzzTargets {
    static let http2Targets: [FuzzTarget] = [
        FuzzTarget("http2-frames", "HTTP/2 frame parser, input in pieces") { input in
            var parser = HTTP2FrameParser()
            for piece in FuzzPieces.split(input) {
                parser.append(piece)
                do {
                    while try parser.next() != nil {}
                } catch {
                    return
                }
            }
        },
        FuzzTarget("http2-connection", "HTTP/2 server connection state machine after the preface") { input in
            var connection = HTTP2Connection()
            _ = connection.receive(HTTP2Connection.preface)
            for piece in FuzzPieces.split(input) {
                for action in connection.receive(piece) {
                    if case .close = action { return }
                }
            }
        },
        FuzzTarget("hpack", "HPACK decoder over several header blocks (shared dynamic table)") { input in
            var decoder = HPACKDecoder(maxTableSize: 4096, maxHeaderListSize: 1 << 16)
            for block in FuzzPieces.records(input, separator: 0xFF) {
                do { _ = try decoder.decode(block) } catch { return }
            }
        },
        FuzzTarget("grpc-deframer", "gRPC length-prefixed message deframer") { input in
            var deframer = GRPCMessageDeframer(maxMessageSize: 1 << 20)
            for piece in FuzzPieces.split(input) {
                deframer.append(piece)
                do {
                    while try deframer.next() != nil {}
                } catch {
                    return
                }
            }
        },
    ]
}
