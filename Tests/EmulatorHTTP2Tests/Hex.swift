/// `"82 86"` → `[0x82, 0x86]` (spaces ignored).
func hex(_ s: String) -> [UInt8] {
    let digits = Array(s.utf8.filter { $0 != 0x20 })
    func value(_ c: UInt8) -> UInt8 { c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10 }
    return stride(from: 0, to: digits.count - 1, by: 2).map { value(digits[$0]) << 4 | value(digits[$0 + 1]) }
}
