/// The server side of one HTTP/2 connection as a value-type state machine (RFC 7540): bytes in,
/// actions out. It performs the preface and SETTINGS exchange, answers PING, keeps both directions
/// of flow control, tracks stream states and turns protocol errors into RST_STREAM or GOAWAY.
/// It never touches a socket: the driver writes the bytes of `.write` actions in order.
///
/// ```swift
/// var connection = HTTP2Connection()
/// for action in connection.receive(bytes) {
///     switch action {
///     case .write(let out): socket.write(out)
///     case .headers(let stream, let fields, let endStream): …
///     case .data(let stream, let payload, let endStream): …
///     case .reset(let stream, _): …
///     case .close: socket.close()
///     }
/// }
/// ```
package struct HTTP2Connection: Sendable {
    package enum Action: Sendable, Equatable {
        /// Bytes to send to the peer.
        case write([UInt8])
        /// A complete header block opened (or, with trailers, ended) a stream.
        case headers(stream: UInt32, fields: [HeaderField], endStream: Bool)
        case data(stream: UInt32, payload: [UInt8], endStream: Bool)
        /// The stream ended abnormally (the peer's RST_STREAM, or our stream error).
        case reset(stream: UInt32, code: HTTP2ErrorCode)
        /// Close the connection after writing what came before.
        case close
    }

    /// The client connection preface (RFC 7540 §3.5).
    package static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    static let maxWindow = Int(Int32.max)
    /// The largest compressed header block accepted (HEADERS plus CONTINUATION frames).
    static let maxHeaderBlock = 256 * 1024

    /// The initial window we advertise for each stream and raise the connection window to.
    package let localInitialWindow: Int
    /// Our SETTINGS_MAX_CONCURRENT_STREAMS: streams beyond it are refused.
    package let maxConcurrentStreams: Int
    private var parser: HTTP2FrameParser
    private var decoder = HPACKDecoder()
    private var encoder = HPACKEncoder()
    private var sawPreface = false
    private(set) var goAwaySent = false
    /// The peer's settings that govern what we send.
    private(set) var peerMaxFrameSize = HTTP2Frame.defaultMaxFrameSize
    private(set) var peerInitialWindow = 65_535
    /// Connection-level windows.
    private(set) var connectionSendWindow = 65_535
    private var connectionReceiveWindow: Int
    /// Connection window consumed by the DATA of the bytes being received, given back by one
    /// WINDOW_UPDATE once they are all read (32 calls arriving together: one frame, not 32).
    private var connectionCredit = 0
    private(set) var streams: [UInt32: HTTP2StreamState] = [:]
    /// The sum of the streams' `pendingBytes`: with nothing queued (the common case), asking what
    /// is queued costs no walk over the open streams, which a call gate does for every call.
    private var queuedDataBytes = 0
    private(set) var highestPeerStream: UInt32 = 0
    /// A header block awaiting CONTINUATION frames.
    private var partialHeaders: (stream: UInt32, block: [UInt8], endStream: Bool)?

    package init(initialWindow: Int = 1 << 20, maxConcurrentStreams: Int = 1000) {
        self.localInitialWindow = initialWindow
        self.maxConcurrentStreams = maxConcurrentStreams
        // SETTINGS never changes the connection window: it starts at 65 535 and grows by WINDOW_UPDATE.
        self.connectionReceiveWindow = max(initialWindow, 65_535)
        self.parser = HTTP2FrameParser()
    }

    /// The number of streams that are neither closed nor reset.
    package var openStreamCount: Int { streams.count }

    // MARK: Receiving

    package mutating func receive(_ bytes: [UInt8]) -> [Action] {
        guard !goAwaySent else { return [] }
        parser.append(bytes)
        var actions: [Action] = []
        if !sawPreface {
            guard parser.bufferedCount >= Self.preface.count else { return [] }
            guard parser.take(Self.preface.count) == Self.preface else {
                return goAway(.protocolError, "invalid connection preface")
            }
            sawPreface = true
            var out = HTTP2FrameEncoder.encode(.settings(ack: false, [
                HTTP2Setting(HTTP2Setting.maxConcurrentStreams, UInt32(clamping: maxConcurrentStreams)),
                HTTP2Setting(HTTP2Setting.initialWindowSize, UInt32(localInitialWindow)),
            ]))
            if localInitialWindow > 65_535 {
                out += HTTP2FrameEncoder.encode(.windowUpdate(stream: 0, increment: UInt32(localInitialWindow - 65_535)))
            }
            actions.append(.write(out))
        }
        while true {
            let frame: HTTP2Frame?
            do { frame = try parser.next() } catch {
                return actions + goAway(error.code, error.reason)
            }
            guard let frame else { break }
            do {
                try handle(frame, &actions)
            } catch where error.isConnectionError {
                return actions + goAway(error.code, error.reason)
            } catch {
                actions += resetStream(error.stream, error.code)
            }
        }
        if connectionCredit > 0 {
            actions.append(.write(HTTP2FrameEncoder.encode(.windowUpdate(stream: 0, increment: UInt32(connectionCredit)))))
            connectionCredit = 0
        }
        return actions
    }

    private mutating func handle(_ frame: HTTP2Frame, _ actions: inout [Action]) throws(HTTP2ProtocolError) {
        if let partial = partialHeaders {
            guard case .continuation(let stream, let block, let endHeaders) = frame, stream == partial.stream else {
                throw HTTP2ProtocolError(.protocolError, "expected CONTINUATION for stream \(partial.stream)")
            }
            partialHeaders?.block += block
            if partial.block.count + block.count > Self.maxHeaderBlock {
                // CONTINUATION flood: an endless header block would grow without bound.
                throw HTTP2ProtocolError(.enhanceYourCalm, "header block larger than \(Self.maxHeaderBlock) bytes")
            }
            if endHeaders {
                partialHeaders = nil
                try headerBlockComplete(stream: stream, block: partial.block + block, endStream: partial.endStream, &actions)
            }
            return
        }
        switch frame {
        case .settings(let ack, let settings):
            if ack { return }
            try apply(settings, &actions)
            // The ACK goes out before any DATA the new settings let out: a peer (grpc-core) counts
            // a larger initial window only once it has our ACK, and resets streams whose DATA
            // arrives before it ("frame of size … overflows local window").
            actions.append(.write(HTTP2FrameEncoder.encode(.settings(ack: true, []))))
            flushAll(&actions)
        case .ping(let ack, let opaque):
            if !ack { actions.append(.write(HTTP2FrameEncoder.encode(.ping(ack: true, opaque: opaque)))) }
        case .goAway:
            break
        case .windowUpdate(let stream, let increment):
            try windowUpdate(stream: stream, increment: Int(increment), &actions)
        case .headers(let stream, let block, let endStream, let endHeaders):
            if endHeaders {
                try headerBlockComplete(stream: stream, block: block, endStream: endStream, &actions)
            } else {
                partialHeaders = (stream, block, endStream)
            }
        case .continuation:
            throw HTTP2ProtocolError(.protocolError, "CONTINUATION without a preceding HEADERS")
        case .data(let stream, let payload, let endStream, let length):
            try data(stream: stream, payload: payload, endStream: endStream, length: length, &actions)
        case .rstStream(let stream, let code):
            if stream > highestPeerStream { throw HTTP2ProtocolError(.protocolError, "RST_STREAM on idle stream \(stream)") }
            if let removed = streams.removeValue(forKey: stream) {
                queuedDataBytes -= removed.pendingBytes
                actions.append(.reset(stream: stream, code: code))
            }
        case .priority, .unknown:
            break
        case .pushPromise:
            throw HTTP2ProtocolError(.protocolError, "a client must not send PUSH_PROMISE")
        }
    }

    private mutating func apply(_ settings: [HTTP2Setting], _ actions: inout [Action]) throws(HTTP2ProtocolError) {
        for s in settings {
            switch s.identifier {
            case HTTP2Setting.enablePush:
                if s.value > 1 { throw HTTP2ProtocolError(.protocolError, "SETTINGS_ENABLE_PUSH must be 0 or 1") }
            case HTTP2Setting.initialWindowSize:
                guard s.value <= UInt32(Self.maxWindow) else {
                    throw HTTP2ProtocolError(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1")
                }
                let delta = Int(s.value) - peerInitialWindow
                peerInitialWindow = Int(s.value)
                for id in streams.keys { streams[id]?.sendWindow += delta }
            case HTTP2Setting.maxFrameSize:
                guard s.value >= 16_384, s.value <= 16_777_215 else {
                    throw HTTP2ProtocolError(.protocolError, "SETTINGS_MAX_FRAME_SIZE out of range")
                }
                peerMaxFrameSize = Int(s.value)
            default:
                break
            }
        }
    }

    private mutating func windowUpdate(stream: UInt32, increment: Int, _ actions: inout [Action]) throws(HTTP2ProtocolError) {
        if stream == 0 {
            if increment == 0 { throw HTTP2ProtocolError(.protocolError, "WINDOW_UPDATE with increment 0") }
            connectionSendWindow += increment
            if connectionSendWindow > Self.maxWindow {
                throw HTTP2ProtocolError(.flowControlError, "connection window above 2^31-1")
            }
            flushAll(&actions)
            return
        }
        if increment == 0 { throw HTTP2ProtocolError(.protocolError, stream: stream, "WINDOW_UPDATE with increment 0") }
        guard streams[stream] != nil else { return }
        streams[stream]?.sendWindow += increment
        if let w = streams[stream]?.sendWindow, w > Self.maxWindow {
            throw HTTP2ProtocolError(.flowControlError, stream: stream, "stream window above 2^31-1")
        }
        actions += flush(stream)
    }

    private mutating func headerBlockComplete(stream: UInt32, block: [UInt8], endStream: Bool, _ actions: inout [Action]) throws(HTTP2ProtocolError) {
        let fields: [HeaderField]
        do { fields = try decoder.decode(block) } catch {
            throw HTTP2ProtocolError(.compressionError, "header block could not be decoded: \(error)")
        }
        if streams[stream] != nil {
            // Trailers: must end the stream.
            guard endStream, streams[stream]?.remoteClosed == false else {
                throw HTTP2ProtocolError(.protocolError, stream: stream, "second header block without END_STREAM")
            }
            streams[stream]?.remoteClosed = true
            if streams[stream]?.localClosed == false { actions.append(.headers(stream: stream, fields: fields, endStream: true)) }
            closeIfDone(stream)
            return
        }
        guard stream % 2 == 1, stream > highestPeerStream else {
            throw HTTP2ProtocolError(.protocolError, "HEADERS on stream \(stream), which is closed or not client-initiated")
        }
        highestPeerStream = stream
        if streams.count >= maxConcurrentStreams {
            throw HTTP2ProtocolError(.refusedStream, stream: stream, "more than \(maxConcurrentStreams) concurrent streams")
        }
        var state = HTTP2StreamState(sendWindow: peerInitialWindow, receiveWindow: localInitialWindow)
        state.remoteClosed = endStream
        streams[stream] = state
        actions.append(.headers(stream: stream, fields: fields, endStream: endStream))
    }

    private mutating func data(stream: UInt32, payload: [UInt8], endStream: Bool, length: Int, _ actions: inout [Action]) throws(HTTP2ProtocolError) {
        if stream > highestPeerStream { throw HTTP2ProtocolError(.protocolError, "DATA on idle stream \(stream)") }
        connectionReceiveWindow -= length
        if connectionReceiveWindow < 0 { throw HTTP2ProtocolError(.flowControlError, "connection receive window exceeded") }
        var replenish: [UInt8] = []
        if length > 0 {
            // Everything is consumed at once, so give the window back (at the end of `receive`).
            connectionReceiveWindow += length
            connectionCredit += length
            if connectionCredit >= 1 << 30 {
                // Far more than one read holds; given back now so the increment stays in range.
                replenish = HTTP2FrameEncoder.encode(.windowUpdate(stream: 0, increment: UInt32(connectionCredit)))
                connectionCredit = 0
            }
        }
        guard let index = streams.index(forKey: stream), !streams.values[index].remoteClosed, !streams.values[index].localClosed else {
            if let s = streams[stream], s.localClosed, !s.remoteClosed {
                // We already answered: keep the peer's upload flowing until it ends.
                if endStream {
                    streams[stream] = nil
                } else if length > 0 {
                    replenish += HTTP2FrameEncoder.encode(.windowUpdate(stream: stream, increment: UInt32(length)))
                }
            }
            if !replenish.isEmpty { actions.append(.write(replenish)) }
            // A stream we already ended (or reset): late frames are expected, ignore them.
            return
        }
        // Changed in place (found once): the stream stays open here, as it has not ended locally.
        streams.values[index].receiveWindow -= length
        if streams.values[index].receiveWindow < 0 {
            if !replenish.isEmpty { actions.append(.write(replenish)) }
            throw HTTP2ProtocolError(.flowControlError, stream: stream, "stream receive window exceeded")
        }
        if length > 0, !endStream {
            streams.values[index].receiveWindow += length
            replenish += HTTP2FrameEncoder.encode(.windowUpdate(stream: stream, increment: UInt32(length)))
        }
        streams.values[index].remoteClosed = endStream
        if !replenish.isEmpty { actions.append(.write(replenish)) }
        actions.append(.data(stream: stream, payload: payload, endStream: endStream))
    }

    // MARK: Sending

    /// Sends response headers on `stream` (no-op if the stream is gone).
    package mutating func sendHeaders(stream: UInt32, _ fields: [HeaderField], endStream: Bool = false) -> [Action] {
        guard streams[stream] != nil, streams[stream]?.localClosed == false else { return [] }
        var out: [UInt8] = []
        HTTP2FrameEncoder.headerFrames(stream: stream, block: encoder.encode(fields), endStream: endStream,
                                       maxFrameSize: peerMaxFrameSize, into: &out)
        var actions: [Action] = [.write(out)]
        if endStream { actions += endLocally(stream) }
        return actions
    }

    /// Sends response headers already encoded as a header block, by an encoder that never adds to
    /// the dynamic table (``HPACKEncoder``'s default, this connection's own), so the block means
    /// the same on every stream and can be built once.
    package mutating func sendHeaders(stream: UInt32, block: [UInt8], endStream: Bool = false) -> [Action] {
        guard streams[stream] != nil, streams[stream]?.localClosed == false else { return [] }
        var out: [UInt8] = []
        HTTP2FrameEncoder.headerFrames(stream: stream, block: block, endStream: endStream, maxFrameSize: peerMaxFrameSize, into: &out)
        var actions: [Action] = [.write(out)]
        if endStream { actions += endLocally(stream) }
        return actions
    }

    /// Queues trailers already encoded as a header block (as for ``sendHeaders(stream:block:endStream:)``).
    package mutating func sendTrailers(stream: UInt32, block: [UInt8]) -> [Action] {
        guard streams[stream] != nil, streams[stream]?.localClosed == false else { return [] }
        streams[stream]?.pending.append(.encodedTrailers(block))
        return flush(stream)
    }

    /// Writes a whole answer on `stream` straight into `out`: HEADERS (and CONTINUATION) of
    /// `headerBlock`, one DATA frame of `dataCount` bytes that `data` appends, and `trailerBlock`
    /// ending the stream, as ``sendHeaders(stream:block:endStream:)``, ``sendData(stream:_:endStream:)``
    /// and ``sendTrailers(stream:block:)`` would write them. Only when nothing is queued on the
    /// stream and its window, the connection's and the peer's frame size take the data whole;
    /// otherwise it writes nothing and returns false, and the caller sends the general way.
    /// Both blocks must come from an encoder that never indexes (see ``sendHeaders(stream:block:endStream:)``).
    package mutating func writeWholeAnswer(
        stream: UInt32, headerBlock: [UInt8], dataCount: Int, trailerBlock: [UInt8], into out: inout [UInt8],
        data: (inout [UInt8]) -> Void
    ) -> Bool {
        guard let index = streams.index(forKey: stream) else { return false }
        let state = streams.values[index]
        guard !state.localClosed, state.pending.isEmpty, dataCount > 0, dataCount <= state.sendWindow,
            dataCount <= connectionSendWindow, dataCount <= peerMaxFrameSize
        else { return false }
        // No reserveCapacity: `out` gathers many answers, and reserving exactly each time would
        // reallocate it for every one instead of doubling it now and then.
        HTTP2FrameEncoder.headerFrames(stream: stream, block: headerBlock, endStream: false, maxFrameSize: peerMaxFrameSize, into: &out)
        HTTP2FrameEncoder.frameHeader(type: 0, flags: 0, stream: stream, length: dataCount, into: &out)
        let start = out.count
        data(&out)
        precondition(out.count - start == dataCount, "writeWholeAnswer: data wrote \(out.count - start) bytes, not \(dataCount)")
        HTTP2FrameEncoder.headerFrames(stream: stream, block: trailerBlock, endStream: true, maxFrameSize: peerMaxFrameSize, into: &out)
        connectionSendWindow -= dataCount
        // Ended locally, as `endLocally` does: gone once the peer has ended its side too.
        if state.remoteClosed {
            streams.remove(at: index)
        } else {
            streams.values[index].sendWindow -= dataCount
            streams.values[index].localClosed = true
        }
        return true
    }

    /// Response bytes queued on open streams that the peer's flow-control windows do not yet let
    /// out (DATA payloads only).
    package var queuedBytes: Int { queuedBytes { _ in true } }

    /// Response bytes queued behind the windows on the streams `include` selects.
    package func queuedBytes(where include: (UInt32) -> Bool) -> Int {
        assert(queuedDataBytes == streams.values.reduce(0) { $0 + $1.pendingBytes }, "queuedDataBytes out of step")
        guard queuedDataBytes > 0 else { return 0 }
        var total = 0
        for (id, state) in streams where state.pendingBytes > 0 && include(id) { total += state.pendingBytes }
        return total
    }

    /// Response bytes queued behind the windows on `stream`.
    package func queuedBytes(stream: UInt32) -> Int { streams[stream]?.pendingBytes ?? 0 }

    /// Queues `payload` on `stream`; it goes out as flow-control windows allow.
    package mutating func sendData(stream: UInt32, _ payload: [UInt8], endStream: Bool = false) -> [Action] {
        guard streams[stream] != nil, streams[stream]?.localClosed == false else { return [] }
        streams[stream]?.pending.append(.data(payload, endStream: endStream))
        streams[stream]?.pendingBytes += payload.count
        queuedDataBytes += payload.count
        return flush(stream)
    }

    /// Queues trailers, which end the stream once all queued data has gone out.
    package mutating func sendTrailers(stream: UInt32, _ fields: [HeaderField]) -> [Action] {
        guard streams[stream] != nil, streams[stream]?.localClosed == false else { return [] }
        streams[stream]?.pending.append(.trailers(fields))
        return flush(stream)
    }

    /// Resets `stream` with `code`.
    package mutating func resetStream(_ stream: UInt32, _ code: HTTP2ErrorCode) -> [Action] {
        guard let removed = streams.removeValue(forKey: stream) else {
            return [.write(HTTP2FrameEncoder.encode(.rstStream(stream: stream, code: code)))]
        }
        queuedDataBytes -= removed.pendingBytes
        return [.write(HTTP2FrameEncoder.encode(.rstStream(stream: stream, code: code))), .reset(stream: stream, code: code)]
    }

    /// Sends GOAWAY and closes (graceful shutdown uses `.noError`).
    package mutating func goAway(_ code: HTTP2ErrorCode, _ reason: String) -> [Action] {
        guard !goAwaySent else { return [] }
        goAwaySent = true
        let frame = HTTP2Frame.goAway(lastStream: highestPeerStream, code: code, debug: Array(reason.utf8))
        return [.write(HTTP2FrameEncoder.encode(frame)), .close]
    }

    private mutating func flushAll(_ actions: inout [Action]) {
        for id in streams.keys.sorted() where streams[id]?.pending.isEmpty == false { actions += flush(id) }
    }

    private mutating func flush(_ stream: UInt32) -> [Action] {
        guard let index = streams.index(forKey: stream) else { return [] }
        // Moved out rather than copied: a copy would share `pending` with the table's entry, and
        // the first `removeFirst` would copy the whole queue.
        var state = HTTP2StreamState(sendWindow: 0, receiveWindow: 0)
        swap(&state, &streams.values[index])
        var out: [UInt8] = []
        var ended = false
        drain: while let head = state.pending.first {
            switch head {
            case .trailers(let fields):
                HTTP2FrameEncoder.headerFrames(stream: stream, block: encoder.encode(fields), endStream: true,
                                               maxFrameSize: peerMaxFrameSize, into: &out)
                state.pending.removeFirst()
                ended = true
                break drain
            case .encodedTrailers(let block):
                HTTP2FrameEncoder.headerFrames(stream: stream, block: block, endStream: true, maxFrameSize: peerMaxFrameSize, into: &out)
                state.pending.removeFirst()
                ended = true
                break drain
            case .data(let payload, let endStream):
                let remaining = payload.count - state.pendingOffset
                let n = min(remaining, state.sendWindow, connectionSendWindow, peerMaxFrameSize)
                if remaining > 0, n <= 0 { break drain }
                let chunk = payload[state.pendingOffset..<(state.pendingOffset + n)]
                let last = n == remaining
                HTTP2FrameEncoder.frame(type: 0, flags: last && endStream ? HTTP2Frame.Flag.endStream : 0,
                                        stream: stream, payload: chunk, into: &out)
                state.sendWindow -= n
                state.pendingBytes -= n
                queuedDataBytes -= n
                connectionSendWindow -= n
                if last {
                    state.pending.removeFirst()
                    state.pendingOffset = 0
                    if endStream {
                        ended = true
                        break drain
                    }
                } else {
                    state.pendingOffset += n
                }
            }
        }
        swap(&state, &streams.values[index])
        var actions: [Action] = out.isEmpty ? [] : [.write(out)]
        if ended { actions += endLocally(stream) }
        return actions
    }

    /// We sent END_STREAM: the stream is done once the peer has ended its side too. Until then
    /// it stays half-closed (local) and late DATA is accepted and discarded. (No RST_STREAM
    /// NO_ERROR: some clients, curl among them, treat it as a failure while still uploading.)
    private mutating func endLocally(_ stream: UInt32) -> [Action] {
        guard var state = streams[stream] else { return [] }
        state.localClosed = true
        state.pending.removeAll()
        queuedDataBytes -= state.pendingBytes
        state.pendingBytes = 0
        streams[stream] = state
        closeIfDone(stream)
        return []
    }

    private mutating func closeIfDone(_ stream: UInt32) {
        if let s = streams[stream], s.remoteClosed, s.localClosed { streams[stream] = nil }
    }
}
