// A rules file read as a tape (from JSON, or assembled from YAML), walked by the loaders through
// `RulesNode` with no `Value` tree and no reference counting per step.
//
// Invariants:
// 1. A `TapeRulesNode` is made only by `TapeRulesDocument.withRoot`, from the view that call lends
//    (`JSONTape.withUnsafeView`), and is used only inside it: the loaders keep strings, `Value`s and
//    locations, never nodes.
// 2. A node's `document` is unowned(unsafe): `withRoot` holds the document for the whole call.
// 3. The tape was read with its nodes' positions (`JSONReader.tape(_:limits:keepingPositions:)`, or
//    `YAMLReader.tape`, which `init(tape:file:)` checks): one per node, so any node's index is one of theirs.
// The plain reference is the same loader over `ValueCursor` (a `Value` tree with its source map): the
// `launch-json` fuzz target and `TapeRulesLoaderTests` check that both give the same rules, findings,
// locations and pointers.
internal import RuleKitCore

/// A rules file read into a tape with its nodes' positions.
final class TapeRulesDocument {
    let file: String
    let tape: JSONTape
    /// The view lent for the current `withRoot` call.
    fileprivate var view: UnsafeTapeView?

    /// The document of `bytes` when its JSON is an object the tape takes (see `JSONReader.tape`); nil
    /// otherwise (the `Value` reader then gives its value or its error).
    init?(bytes: [UInt8], file: String, limits: ReaderLimits) {
        guard let tape = JSONReader.tape(bytes[...], limits: limits, keepingPositions: true) else { return nil }
        self.file = file
        self.tape = tape
    }

    /// The document of a tape read with its nodes' positions (from YAML: `YAMLReader.tape`); nil when it
    /// has none (invariant 3).
    init?(tape: JSONTape, file: String) {
        guard tape.positions.count == tape.nodeCount else { return nil }
        self.file = file
        self.tape = tape
    }

    /// Lends the root's node to `body` (invariant 1).
    func withRoot<R>(_ body: (TapeRulesNode) -> R) -> R {
        withExtendedLifetime(self) {
            tape.withUnsafeView { v in
                view = v
                defer { view = nil }
                return body(TapeRulesNode(document: self, node: 0, keyNode: -1))
            }
        }
    }

    /// The location of node `i`, as the reader noted it (invariant 3).
    func location(ofNode i: Int, in v: UnsafeTapeView) -> SourceLocation {
        let p = v.positions[i]
        return SourceLocation(file: file, line: Int(p.line), column: Int(p.column))
    }
}

/// A node of a `TapeRulesDocument` (see the invariants above): a view's index, copied freely.
struct TapeRulesNode: RulesNode {
    unowned(unsafe) let document: TapeRulesDocument
    /// The node's index in the tape.
    let node: Int
    /// The index of the key naming it, when it is an object's member (-1 otherwise).
    let keyNode: Int

    private var view: UnsafeTapeView {
        guard let v = document.view else { preconditionFailure("a tape rules node used outside withRoot") }
        return v
    }

    var kind: Value.Kind { view.nodes[node].kind }

    var value: Value { view.value(at: node) }

    var string: String? {
        let v = view
        guard v.nodes[node].kind == .string else { return nil }
        return String(decoding: v.bytes(node), as: UTF8.self)
    }

    func forEachMember(_ body: (String, TapeRulesNode) throws -> Void) rethrows {
        let v = view
        guard v.nodes[node].kind == .object else { return }
        var k = node + 1
        for _ in 0..<Int(v.nodes[node].count) {
            try body(String(decoding: v.bytes(k), as: UTF8.self), TapeRulesNode(document: document, node: k + 1, keyNode: k))
            k = v.next(k + 1)
        }
    }

    /// A member is a node already: an index.
    func node(_ member: TapeRulesNode) -> TapeRulesNode { member }

    func member(_ key: String) -> TapeRulesNode? {
        let v = view
        guard v.nodes[node].kind == .object else { return nil }
        var key = key
        guard let i = key.withUTF8({ v.member(of: node, key: $0) }) else { return nil }
        return TapeRulesNode(document: document, node: i, keyNode: i - 1)
    }

    func forEachElement(_ body: (Int, TapeRulesNode) throws -> Void) rethrows {
        let v = view
        guard v.nodes[node].kind == .array else { return }
        var e = node + 1
        for position in 0..<Int(v.nodes[node].count) {
            try body(position, TapeRulesNode(document: document, node: e, keyNode: -1))
            e = v.next(e)
        }
    }

    var location: SourceLocation? { document.location(ofNode: node, in: view) }

    var keyLocation: SourceLocation? { document.location(ofNode: keyNode >= 0 ? keyNode : node, in: view) }

    /// Found by descending from the root, as `ValueCursor` finds its path from the source map.
    var pointer: String {
        let v = view
        var path: [PathComponent] = []
        var at = 0
        while at != node {
            let n = v.nodes[at]
            var child = at + 1
            var found = false
            for position in 0..<Int(n.count) {
                let valueNode = n.kind == .object ? child + 1 : child
                let end = v.next(valueNode)
                if node >= valueNode && node < end {
                    path.append(
                        n.kind == .object ? .key(String(decoding: v.bytes(child), as: UTF8.self)) : .index(position))
                    at = valueNode
                    found = true
                    break
                }
                child = end
            }
            guard found else { break }
        }
        return path.jsonPointer
    }
}
