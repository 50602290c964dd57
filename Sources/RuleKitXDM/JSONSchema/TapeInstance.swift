// The validator reading a `JSONTape` in place: the keywords (`Run`) walk its nodes through a borrowed view,
// with no `Value` made and no reference counted per step.
//
// Invariants:
// 1. A `TapeInstance` (and every key, element and member sequence made from it) holds a view lent by
//    `JSONTape.withUnsafeView` and is used only inside that closure: `JSONSchemaValidator.isValid(_:)`
//    makes the root there and the run it feeds keeps no instance past its return (its memo keeps node
//    indexes only).
// 2. The view's nodes are the tape's well-formed pre-order layout (see `JSONTape.swift`): indexes reached
//    through `next`, `count` and the member layout stay inside it.
// The plain reference is the same run over the `Value` the tape stands for: the JSON-Schema-Test-Suite and
// the XDM workload tests compare the two verdicts on every instance.
internal import RuleKitCore

/// One node of a tape, as the validator reads it.
struct TapeInstance: ValidationInstance {
    typealias Key = TapeKey
    let view: UnsafeTapeView
    let index: Int

    private var node: JSONTape.Node { view.nodes[index] }

    var kind: Value.Kind { node.kind }

    var asValue: Value { view.value(at: index) }

    var number: Double? {
        let n = node
        switch n.kind {
        case .int: return Double(Int64(bitPattern: n.payload))
        case .double: return Double(bitPattern: n.payload)
        default: return nil
        }
    }

    var integer: Int64? {
        let n = node
        return n.kind == .int ? Int64(bitPattern: n.payload) : nil
    }

    var text: String? { node.kind == .string ? String(decoding: view.bytes(index), as: UTF8.self) : nil }

    var size: Int { node.isLeaf ? 0 : Int(node.count) }

    var elements: TapeElements {
        TapeElements(view: view, cursor: index + 1, remaining: node.kind == .array ? Int(node.count) : 0)
    }

    var members: TapeMembers {
        TapeMembers(view: view, cursor: index + 1, remaining: node.kind == .object ? Int(node.count) : 0)
    }

    func hasMember(_ name: String) -> Bool {
        guard node.kind == .object else { return false }
        var name = name
        let (found, ascii) = name.withUTF8 { bytes in
            (view.member(of: index, key: bytes) != nil, !bytes.contains { $0 >= 0x80 })
        }
        if found || ascii { return found }
        // Tape keys are ASCII. A name that is not may still equal one as a `String` (the Kelvin sign is
        // canonically a K), which is how the `Value` reference compares: compare that way.
        return members.contains { $0.key.name == name }
    }

    var identity: UInt64? { node.isLeaf || node.count == 0 ? nil : UInt64(index) }
}

/// A member name of a tape: its bytes (plain ASCII, unescaped).
struct TapeKey: InstanceKey {
    let bytes: UnsafeBufferPointer<UInt8>

    var name: String { String(decoding: bytes, as: UTF8.self) }

    func lookup(in table: NameTable) -> SchemaNode? { table[bytes: bytes] }

    func withNameBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R { body(bytes) }
}

/// An array node's elements.
struct TapeElements: Sequence, IteratorProtocol {
    let view: UnsafeTapeView
    var cursor: Int
    var remaining: Int

    mutating func next() -> TapeInstance? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        let i = cursor
        cursor = view.next(i)
        return TapeInstance(view: view, index: i)
    }
}

/// An object node's members: key node, then value node.
struct TapeMembers: Sequence, IteratorProtocol {
    let view: UnsafeTapeView
    var cursor: Int
    var remaining: Int

    mutating func next() -> (key: TapeKey, value: TapeInstance)? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        let k = cursor
        cursor = view.next(k + 1)
        return (TapeKey(bytes: view.bytes(k)), TapeInstance(view: view, index: k + 1))
    }
}

extension JSONSchemaValidator {
    /// Whether node `node` of a tape (any value in it) is valid: the tests' way to read scalars and arrays
    /// from tapes too.
    func isValid(_ tape: JSONTape, node: Int) -> Bool {
        tape.withUnsafeView { view in
            guard view.nodes.indices.contains(node) else { return false }
            var run = Run<TapeInstance>(collect: false, maxErrors: 0, formats: assertFormats)
            return run.check(root, TapeInstance(view: view, index: node))
        }
    }
}
