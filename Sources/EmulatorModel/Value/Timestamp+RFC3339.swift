import EmulatorSupport

extension Timestamp {
    /// Parses an RFC 3339 time as the proto3 JSON mapping accepts it:
    /// `YYYY-MM-DDTHH:MM:SS[.f…]` with 0–9 fractional digits, then `Z` or `±hh:mm`.
    ///
    /// Throws `INVALID_ARGUMENT` for anything else, including dates outside years 1…9999.
    package init(rfc3339 text: String) throws(EmulatorError) {
        guard let t = Timestamp.parseRFC3339(Array(text.utf8)) else {
            throw .invalidArgument("Invalid timestamp: \"\(text)\"")
        }
        self = t
    }

    private static func parseRFC3339(_ b: [UInt8]) -> Timestamp? {
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in i..<(i + n) {
                let c = b[k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int64(c - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2)
        else { return nil }
        guard i < b.count, b[i] == 0x54 || b[i] == 0x74 else { return nil }  // T or t
        i += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2)
        else { return nil }
        guard year >= 1, CivilDate(year: year, month: month, day: day).isValid,
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var nanos: Int64 = 0
        if i < b.count, b[i] == 0x2E {
            i += 1
            var count = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                guard count < 9 else { return nil }
                nanos = nanos * 10 + Int64(b[i] - 0x30)
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<9 { nanos *= 10 }
        }
        var offset: Int64 = 0
        guard i < b.count else { return nil }
        switch b[i] {
        case 0x5A, 0x7A:  // Z or z
            i += 1
        case 0x2B, 0x2D:  // + or -
            let sign: Int64 = b[i] == 0x2D ? -1 : 1
            i += 1
            guard let oh = digits(2), expect(0x3A), let om = digits(2), oh <= 23, om <= 59 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        default:
            return nil
        }
        guard i == b.count else { return nil }
        let days = CivilDate(year: year, month: month, day: day).daysSinceEpoch
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        let t = Timestamp(seconds: seconds, nanos: Int32(nanos))
        return t.isValid ? t : nil
    }

    /// The RFC 3339 UTC form with 0, 3, 6 or 9 fractional digits, as proto3 JSON writes it:
    /// `2024-01-02T03:04:05Z`, `…05.120Z`, `…05.123456Z`, `…05.000000001Z`.
    package var rfc3339: String {
        var out: [UInt8] = []
        out.reserveCapacity(30)
        appendRFC3339(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``rfc3339`` as UTF-8 (ASCII: nothing in it needs escaping in JSON) without
    /// building a string.
    package func appendRFC3339(to out: inout [UInt8]) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let date = CivilDate(daysSinceEpoch: days)
        // The at most 31 bytes are made on the stack and appended at once: an append per byte
        // checks the array's uniqueness and capacity every time.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            var count = 0
            func byte(_ b: UInt8) {
                buffer[count] = b
                count += 1
            }
            // Exactly `width` digits of |v|, most significant first (higher digits dropped).
            func put(_ v: Int64, _ width: Int) {
                var v = v < 0 ? -v : v
                var divisor: Int64 = 1
                for _ in 1..<width { divisor &*= 10 }
                v %= divisor &* 10
                while divisor > 0 {
                    byte(UInt8(0x30 + v / divisor % 10))
                    divisor /= 10
                }
            }
            if date.year < 0 { byte(0x2D) }
            put(date.year, 4); byte(0x2D); put(date.month, 2); byte(0x2D); put(date.day, 2)
            byte(0x54)
            put(secondOfDay / 3600, 2); byte(0x3A)
            put(secondOfDay / 60 % 60, 2); byte(0x3A)
            put(secondOfDay % 60, 2)
            let n = Int64(nanos)
            if n != 0 {
                byte(0x2E)
                if n % 1_000_000 == 0 {
                    put(n / 1_000_000, 3)
                } else if n % 1000 == 0 {
                    put(n / 1000, 6)
                } else {
                    put(n, 9)
                }
            }
            byte(0x5A)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }
}
