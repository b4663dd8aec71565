import EmulatorModel
import EmulatorProtobuf
import EmulatorSupport

extension FuzzTargets {
    static let dataTargets: [FuzzTarget] = [
        FuzzTarget("json", "JSON reader as REST bodies use it") { input in
            _ = try? JSONReader.parse(input)
        },
        FuzzTarget("json-strict", "JSON reader refusing duplicate keys; and with comments (RTDB rules)") { input in
            _ = try? JSONReader.parse(input, maxDepth: 64, rejectingDuplicateKeys: true)
            _ = try? JSONReader.parse(input, maxDepth: 64, allowComments: true)
        },
        FuzzTarget("protobuf", "protobuf reader: every field, nested messages tried recursively") { input in
            var reader = ProtoReader(input)
            walk(&reader)
        },
        FuzzTarget("paths", "document names, field paths and RTDB paths from text") { input in
            let text = String(decoding: input, as: UTF8.self)
            _ = try? DocumentName(parsing: text)
            _ = try? FieldPath(parsing: text)
            _ = try? ResourcePath(parsing: text)
            _ = try? DatabasePath(parsing: text)
            _ = try? DatabasePath(parsing: text, percentDecoded: true)
        },
    ]

    /// Reads every field; a length-delimited field is also read as a nested message (and as a
    /// string), as a decoder that does not know the schema would try.
    private static func walk(_ reader: inout ProtoReader) {
        do {
            while let (_, wire) = try reader.next() {
                switch wire {
                case .lengthDelimited:
                    var copy = reader
                    _ = try? copy.string()
                    var nested = try reader.message()
                    walk(&nested)
                default:
                    try reader.skip(wire)
                }
            }
        } catch {
            return
        }
    }
}
