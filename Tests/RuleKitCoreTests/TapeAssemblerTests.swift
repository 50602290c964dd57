import Foundation
import RuleKitTestSupport
import Testing

@testable import RuleKitCore

/// The tape assembler (used by the YAML reader) against the JSON tape reader, its plain reference: a value
/// pushed node by node makes the same layout the reader makes from the value's JSON (kinds, counts, flags,
/// subtree ends, member indexes), stands for the same object, and finds the same members.
@Suite struct TapeAssemblerTests {
    static let at = JSONTape.Position(line: 1, column: 1)

    /// Pushes `value` (bounded depth: test data) into `a`; false when the assembler refuses.
    static func push(_ value: Value, _ a: inout TapeAssembler) -> Bool {
        switch value {
        case .object(let o):
            guard a.begin(object: true, at: at) else { return false }
            for (k, v) in o {
                var key = k
                guard key.withUTF8({ a.key($0, at: at) }), push(v, &a) else { return false }
            }
            return a.end()
        case .array(let elements):
            guard a.begin(object: false, at: at) else { return false }
            for e in elements where !push(e, &a) { return false }
            return a.end()
        case .string(var s):
            return s.withUTF8 { a.string($0, at: at) }
        default:
            return a.scalar(value, at: at)
        }
    }

    static func assemble(_ o: ValueObject) -> JSONTape? {
        var a = TapeAssembler(expectedNodes: 4, expectedBytes: 16)
        guard push(.object(o), &a) else { return nil }
        return a.finish()
    }

    /// Each node's shape: what both makers must agree on (string payloads point into different texts).
    static func shapes(_ tape: JSONTape) -> [String] {
        tape.withUnsafeView { v in
            (0..<v.nodes.count).map { i in
                let n = v.nodes[i]
                let shape = n.kind == .string ? "\(Array(v.bytes(i)))" : n.isLeaf ? "\(n.payload)" : "\(v.next(i)) \(n.payload >> 32 != 0)"
                return "\(n.kind) \(n.count) \(n.flags & (n.kind == .string ? JSONTape.Node.nonASCIIFlag : 0xFF)) \(shape)"
            }
        }
    }

    @Test(arguments: [0, 3, 48, 49, 200])
    func anAssembledTapeIsTheReadersLayout(_ count: Int) throws {
        var o: ValueObject = ["a.b": 1, "s": "naïve", "n": .null, "t": true, "d": -0.5, "list": [1, "x", [], [:]]]
        var big = ValueObject()
        for i in 0..<count { big["k\(i)"] = .int(Int64(i)) }
        o["big"] = .object(big)
        o["nested"] = ["deeper": ["big": .object(big)]]
        let assembled = try #require(Self.assemble(o))
        let read = try #require(JSONTape.of(o))
        #expect(!assembled.isJSONText && read.isJSONText)
        #expect(assembled.object() == o)
        #expect(Self.shapes(assembled) == Self.shapes(read))
        #expect(assembled.positions.count == assembled.nodeCount)
        assembled.withUnsafeView { v in
            let bigNode = "big".utf8.withContiguousStorageIfAvailable { v.member(of: 0, key: $0) } ?? nil
            #expect(bigNode != nil)
            for i in -1...(count + 1) {
                var key = "k\(i)"
                let found = key.withUTF8 { k in bigNode.flatMap { v.member(of: $0, key: k) } }
                let want: Value? = (0..<count).contains(i) ? .int(Int64(i)) : nil
                #expect(found.map { v.value(at: $0) } == want)
            }
        }
    }

    /// A copied subtree is a well-formed subtree of its own: the same shape, its index moved with it.
    @Test(arguments: [2, 60])
    func aCopiedSubtreeStandsForTheSameValue(_ count: Int) throws {
        var inner = ValueObject()
        for i in 0..<count { inner["m\(i)"] = ["x": .int(Int64(i)), "y": [1, 2]] }
        var a = TapeAssembler(expectedNodes: 4, expectedBytes: 16)
        let r1 = a.begin(object: true, at: Self.at)
        #expect(r1)
        let r2 = "orig".utf8.withContiguousStorageIfAvailable { a.key($0, at: Self.at) } == true
        #expect(r2)
        let start = a.count
        let r3 = Self.push(.object(inner), &a)
        #expect(r3)
        let range = start..<a.count
        let inside = JSONTape.Position(line: 9, column: 9)
        let insideKey = JSONTape.Position(line: 8, column: 8)
        for name in ["copy", "again"] {
            let r4 = name.utf8.withContiguousStorageIfAvailable { a.key($0, at: Self.at) } == true
            #expect(r4)
            let r5 = a.copy(subtree: range, at: Self.at, inner: inside, innerKey: insideKey)
            #expect(r5)
        }
        let r6 = a.end()
        #expect(r6)
        let finished = a.finish()
        let tape = try #require(finished)
        #expect(tape.object() == ["orig": .object(inner), "copy": .object(inner), "again": .object(inner)])
        let expected = try #require(JSONTape.of(["orig": .object(inner), "copy": .object(inner), "again": .object(inner)]))
        #expect(Self.shapes(tape) == Self.shapes(expected))
        // Under a copy, keys take `innerKey` and values `inner`; the copy's root its own position.
        let copyStart = range.upperBound + 1
        #expect(tape.positions[copyStart - 1] == Self.at)
        #expect(tape.positions[copyStart] == Self.at)
        #expect(tape.positions[copyStart + 1] == insideKey)
        #expect(tape.positions[copyStart + 2] == inside)
    }

    @Test func whatBreaksTheLayoutIsRefused() {
        var a = TapeAssembler(expectedNodes: 4, expectedBytes: 16)
        let r7 = a.begin(object: true, at: Self.at)
        #expect(r7)
        let r8 = !a.scalar(.int(1), at: Self.at)
        #expect(r8, "a value where a key is due")
        let r9 = "é".utf8.withContiguousStorageIfAvailable { a.key($0, at: Self.at) } == false
        #expect(r9, "a key that is not ASCII")
        var b = TapeAssembler(expectedNodes: 4, expectedBytes: 16)
        let r10 = b.begin(object: true, at: Self.at)
        #expect(r10)
        let r11 = "k".utf8.withContiguousStorageIfAvailable { b.key($0, at: Self.at) } == true
        #expect(r11)
        let r12 = !b.end()
        #expect(r12, "an object closed after a key")
        let r13 = !b.scalar(.string("x"), at: Self.at)
        #expect(r13, "a string through scalar")
        // Repeated keys, in a small object and (found by the index) in a large one.
        for size in [3, 100] {
            var o = ValueObject()
            for i in 0..<size { o["k\(i)"] = .int(Int64(i)) }
            var c = TapeAssembler(expectedNodes: 4, expectedBytes: 16)
            let r14 = Self.push(.object(o), &c)
            #expect(r14)
            var d = TapeAssembler(expectedNodes: 4, expectedBytes: 16)
            let r15 = d.begin(object: true, at: Self.at)
            #expect(r15)
            var ok = true
            for i in 0..<size + 1 {
                let key = "k\(i == size ? 1 : i)"
                ok = ok && key.utf8.withContiguousStorageIfAvailable { d.key($0, at: Self.at) } == true && d.scalar(.int(0), at: Self.at)
            }
            let r16 = !(ok && d.end())
            #expect(r16, "size \(size)")
        }
        // Only one complete object makes a tape.
        var e = TapeAssembler(expectedNodes: 4, expectedBytes: 16)
        let r17 = e.begin(object: false, at: Self.at) && e.end()
        #expect(r17)
        let r18 = e.finish() == nil
        #expect(r18, "an array root")
        var f = TapeAssembler(expectedNodes: 4, expectedBytes: 16)
        let r19 = f.begin(object: true, at: Self.at)
        #expect(r19)
        let r20 = f.finish() == nil
        #expect(r20, "an object never closed")
        var g = TapeAssembler(expectedNodes: 4, expectedBytes: 16)
        let r21 = g.begin(object: true, at: Self.at) && g.end()
        #expect(r21)
        let r22 = !g.begin(object: true, at: Self.at)
        #expect(r22, "a second root")
    }
}
