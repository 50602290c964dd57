import RuleKitCore

/// What the loaders read of any node, or of an object's member before they make it a node of its own.
protocol RulesValue {
    /// The node's kind.
    var kind: Value.Kind { get }
    /// The node as a `Value`: a container with everything under it (for what a rule keeps as values).
    var value: Value { get }
    /// The text of a string node (nil for other kinds).
    var string: String? { get }
}

extension RulesValue {
    /// Whether the node is JSON's null.
    var isNull: Bool { kind == .null }
}

/// A node of a rules document as the loaders read it, with where it is: a `ValueCursor` (a `Value` tree
/// with its source map: YAML, documents built in code) or a `TapeRulesNode` (JSON read into a tape with
/// its nodes' positions, no `Value` tree at all).
///
/// The loaders are written once, over this protocol: what a rules file means cannot depend on how it was
/// read. They keep what a rule holds (strings, `Value`s, locations), never nodes, so a node may be a view
/// that lives only while its document is lent.
protocol RulesNode: RulesValue {
    /// An object's member as `forEachMember` hands it over: its value, and what makes its node (`node(_:)`)
    /// when the loader walks below it or reports it. Most members are scalars read once: for a cursor, a
    /// node would cost reference counts a plain value does not.
    associatedtype Member: RulesValue
    /// Calls `body` with each member of an object node, in order: its key and its value.
    func forEachMember(_ body: (String, Member) throws -> Void) rethrows
    /// The node of a member this node handed over.
    func node(_ member: Member) -> Self
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

extension ValueCursor: RulesNode {
    /// A member's value and position: its cursor is made only when asked for (`node(_:)`).
    struct Member: RulesValue {
        let value: Value
        let position: Int

        var kind: Value.Kind { value.kind }

        var string: String? { value.stringValue }
    }

    var kind: Value.Kind { value.kind }

    var string: String? { value.stringValue }

    func forEachMember(_ body: (String, Member) throws -> Void) rethrows {
        try forEachMemberValue { k, v, i in try body(k, Member(value: v, position: i)) }
    }

    func node(_ member: Member) -> ValueCursor {
        guard let c = self.member(at: member.position) else { preconditionFailure("a member this cursor did not hand over") }
        return c
    }

    func member(_ key: String) -> ValueCursor? { self[key] }
}

extension RulesNode {
    /// The members of an object node with their nodes, in order (empty for other kinds).
    var memberNodes: [(key: String, node: Self)] {
        var out: [(key: String, node: Self)] = []
        forEachMember { k, m in out.append((k, node(m))) }
        return out
    }

    /// The keys of an object node, in order (empty for other kinds).
    var keys: [String] {
        var out: [String] = []
        forEachMember { k, _ in out.append(k) }
        return out
    }

    /// The elements of an array node, in order (empty for other kinds).
    var elementNodes: [Self] {
        var out: [Self] = []
        forEachElement { _, e in out.append(e) }
        return out
    }
}
