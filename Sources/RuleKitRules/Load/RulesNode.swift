import RuleKitCore

/// A node of a rules document as the loaders read it, with where it is: a `ValueCursor` (a `Value` tree
/// with its source map: YAML, documents built in code) or a `TapeRulesNode` (JSON read into a tape with
/// its nodes' offsets, no `Value` tree at all).
///
/// The loaders are written once, over this protocol: what a rules file means cannot depend on how it was
/// read. They keep what a rule holds (strings, `Value`s, locations), never nodes, so a node may be a view
/// that lives only while its document is lent.
protocol RulesNode {
    /// The node's kind.
    var kind: Value.Kind { get }
    /// The node as a `Value`: a container with everything under it (for what a rule keeps as values).
    var value: Value { get }
    /// The text of a string node (nil for other kinds).
    var string: String? { get }
    /// Calls `body` with each member of an object node: its key, its value's node and its position.
    func forEachMember(_ body: (String, Self, Int) -> Void)
    /// The value's node of member `key` of an object node, or nil.
    func member(_ key: String) -> Self?
    /// Calls `body` with each element of an array node, in order.
    func forEachElement(_ body: (Int, Self) throws -> Void) rethrows
    /// Where the node starts, if known.
    var location: SourceLocation? { get }
    /// Where the key naming the node is, falling back to the node itself.
    var keyLocation: SourceLocation? { get }
    /// The node's path from the root as a JSON pointer.
    var pointer: String { get }
}

extension RulesNode {
    /// Whether the node is JSON's null.
    var isNull: Bool { kind == .null }
}

extension ValueCursor: RulesNode {
    var kind: Value.Kind { value.kind }

    var string: String? {
        if case .string(let s) = value { return s }
        return nil
    }

    func forEachMember(_ body: (String, ValueCursor, Int) -> Void) {
        var position = 0
        forEachMember { (key: String, node: ValueCursor) in
            body(key, node, position)
            position += 1
        }
    }

    func member(_ key: String) -> ValueCursor? { self[key] }
}
