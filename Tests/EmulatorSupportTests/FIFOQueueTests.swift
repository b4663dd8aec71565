import EmulatorSupport
import Testing

@Suite struct FIFOQueueTests {
    @Test func takesInArrivalOrderAcrossCompactions() {
        var q = FIFOQueue<Int>()
        var expected = 0
        var next = 0
        // Interleave appends and takes so the front hole is closed many times, both ways.
        for round in 0..<50 {
            for _ in 0..<(round % 7 + 60) { q.append(next); next += 1 }
            for _ in 0..<(round % 5 + 55) {
                #expect(q.popFirst() == expected)
                expected += 1
            }
            #expect(q.count == next - expected)
        }
        while let v = q.popFirst() {
            #expect(v == expected)
            expected += 1
        }
        #expect(expected == next && q.isEmpty && q.count == 0)
        #expect(q.popFirst() == nil)
        q.append(1)
        q.removeAll()
        #expect(q.isEmpty)
    }
}
