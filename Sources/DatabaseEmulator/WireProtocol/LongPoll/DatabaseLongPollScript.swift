/// The bodies of long-poll answers. The JS SDK loads every long poll as a `<script>` in a hidden
/// iframe and registers two functions on the page (`BrowserPollConnection.ts`):
/// `pLPCommand<cb>(command, …)` for `start` (the connection id and password) and `close`, and
/// `pRTLPCB<cb>(packet, [messages])` for server messages, which its `PacketReceiver` hands on in
/// packet-number order. Each script here is self-contained: it looks the function up on the
/// parent window and calls it if it is still there (the page may have closed the connection).
///
/// Messages travel as a JSON string given to `JSON.parse`, so they reach the SDK exactly as a
/// WebSocket frame would (a JavaScript object literal treats a `"__proto__"` key differently).
///
/// ```swift
/// DatabaseLongPollScript.packet(callback: "1", number: 3, messages: [Array(#"{"t":"d","d":{}}"#.utf8)])
/// // (function(){var f=parent.window["pRTLPCB1"];if(f)f(3,JSON.parse("[{\"t\":\"d\",\"d\":{}}]"));})();
/// ```
enum DatabaseLongPollScript {
    /// `pLPCommand<cb>('start', id, password)`: the first lines of the answer to `start=t`.
    static func start(callback: String, id: String, password: String) -> [UInt8] {
        command(callback, #""start",\#(quoted(id)),\#(quoted(password))"#)
    }

    /// `pRTLPCB<cb>(number, [messages])`: one packet of server messages (each compact JSON).
    static func packet(callback: String, number: Int, messages: [[UInt8]]) -> [UInt8] {
        var array: [UInt8] = [UInt8(ascii: "[")]
        for (i, message) in messages.enumerated() {
            if i > 0 { array.append(UInt8(ascii: ",")) }
            array.append(contentsOf: message)
        }
        array.append(UInt8(ascii: "]"))
        var out = Array(#"(function(){var f=parent.window["pRTLPCB\#(callback)"];if(f)f(\#(number),JSON.parse("#.utf8)
        appendStringLiteral(array, to: &out)
        out.append(contentsOf: "));})();\n".utf8)
        return out
    }

    /// `pLPCommand<cb>('close', last)`: the server sends no more; the SDK closes the connection
    /// once it has handled packet `last` (at once without one).
    static func close(callback: String, after last: Int?) -> [UInt8] {
        command(callback, last.map { #""close",\#($0)"# } ?? #""close""#)
    }

    /// The page the SDK loads in its disconnect iframe (`dframe=t`): when the iframe goes away
    /// (the connection closes, the page unloads), it tells the server (`disconn=t`), which ends
    /// the session at once and runs its onDisconnect operations.
    static func disconnectFrame(id: String, password: String) -> [UInt8] {
        let url = "/.lp?disconn=t&id=\(id)&pw=\(password)"
        return Array(
            """
            <!DOCTYPE html><html><body><script>
            (function(){
              var url=\(quoted(url)),sent=false;
              function leave(){
                if(sent)return;
                sent=true;
                try{if(navigator.sendBeacon&&navigator.sendBeacon(url))return;}catch(e){}
                try{var x=new XMLHttpRequest();x.open("GET",url,false);x.send(null);}catch(e){}
              }
              window.addEventListener("pagehide",leave,false);
              window.addEventListener("unload",leave,false);
            })();
            </script></body></html>

            """.utf8)
    }

    /// An empty answer: the poll ends without a packet and the SDK sends the next one.
    static let empty: [UInt8] = []

    // MARK: Encoding

    private static func command(_ callback: String, _ arguments: String) -> [UInt8] {
        Array(#"(function(){var f=parent.window["pLPCommand\#(callback)"];if(f)f(\#(arguments));})();"#.utf8) + [0x0A]
    }

    /// A JavaScript string literal of ASCII `text` the server made (ids, URLs).
    private static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        appendStringLiteral(Array(text.utf8), to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `"…"` holding UTF-8 `bytes`: quotes, backslashes, control characters, `<` (so no
    /// `</script>` can appear) and U+2028/U+2029 (line terminators in older engines) escaped.
    static func appendStringLiteral(_ bytes: [UInt8], to out: inout [UInt8]) {
        out.reserveCapacity(out.count + bytes.count + bytes.count / 8 + 2)
        out.append(UInt8(ascii: "\""))
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case UInt8(ascii: "<"):
                out.append(contentsOf: #"\u003c"#.utf8)
            case 0x0A:
                out.append(contentsOf: #"\n"#.utf8)
            case 0x0D:
                out.append(contentsOf: #"\r"#.utf8)
            case 0x00..<0x20, 0x7F:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hex(byte >> 4))
                out.append(hex(byte & 0x0F))
            case 0xE2 where i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
                out.append(contentsOf: (bytes[i + 2] == 0xA8 ? #"\u2028"# : #"\u2029"#).utf8)
                i += 2
            default:
                out.append(byte)
            }
            i += 1
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func hex(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
