/// Where each node of a parsed document came from, stored flat in document (pre-)order.
///
/// Readers append one entry per node as they go, so keeping locations costs one array append per node
/// instead of a parallel tree. Entry `i` covers `span` entries (itself and its descendants); an object's
/// children follow it in the object's key order, each carrying the position of its key too.
/// A container whose children have no entries of their own (an expanded YAML alias) lends its entry
/// to them: diagnostics inside point at the alias.
public struct SourceMap: Sendable {
    /// Where one node of a document is.
    public struct Entry: Sendable, Hashable {
        /// One-based line of the node's first character.
        public var line: UInt32
        /// One-based column of the node's first character.
        public var column: UInt32
        /// One-based line of the key naming the node (0 when it has none).
        public var keyLine: UInt32
        /// One-based column of the key naming the node (0 when it has none).
        public var keyColumn: UInt32
        /// How many entries the node's subtree takes, itself included (entries are in document order).
        public var span: UInt32

        /// An entry for a node at `line`:`column`, its key at `keyLine`:`keyColumn`.
        public init(line: UInt32, column: UInt32, keyLine: UInt32 = 0, keyColumn: UInt32 = 0, span: UInt32 = 1) {
            self.line = line
            self.column = column
            self.keyLine = keyLine
            self.keyColumn = keyColumn
            self.span = span
        }
    }

    /// The file the positions refer to.
    public var file: String
    /// One entry per node, in document order (depth first, members in order).
    public var entries: [Entry]

    /// A map of `file` with the given entries.
    public init(file: String, entries: [Entry] = []) {
        self.file = file
        self.entries = entries
    }

    /// The location of the node at entry `i`.
    public func location(of i: Int) -> SourceLocation {
        let e = entries[i]
        return SourceLocation(file: file, line: Int(e.line), column: Int(e.column))
    }

    /// The location of the key that introduced the node at entry `i`, if it is an object member.
    public func keyLocation(of i: Int) -> SourceLocation? {
        let e = entries[i]
        guard e.keyLine > 0 else { return nil }
        return SourceLocation(file: file, line: Int(e.keyLine), column: Int(e.keyColumn))
    }

    /// The entry of child `position` of the container at entry `i`, or `nil` when the container lends
    /// its own entry to its children.
    func childEntry(of i: Int, position: Int) -> Int? {
        let e = entries[i]
        guard e.span > 1 else { return nil }
        var c = i + 1
        let end = i + Int(e.span)
        var n = 0
        while c < end {
            if n == position { return c }
            c += Int(entries[c].span)
            n += 1
        }
        return nil
    }
}

/// A parsed document: its value and, when the reader kept them, the source positions of its nodes.
public struct Document: Sendable {
    /// The document's value.
    public var value: Value
    /// The positions of its nodes, when the reader kept them.
    public var sourceMap: SourceMap?
    /// Non-fatal findings of the reader (for YAML, e.g. YAML 1.1 booleans that stayed strings).
    public var warnings: [Diagnostic]

    /// A document with its value, optional positions and reader warnings.
    public init(value: Value, sourceMap: SourceMap? = nil, warnings: [Diagnostic] = []) {
        self.value = value
        self.sourceMap = sourceMap
        self.warnings = warnings
    }

    /// A cursor at the root, for walking the document with locations.
    public var root: ValueCursor { ValueCursor(document: self) }
}

/// One segment of a path into a `Value`: an object key or an array index.
public enum PathComponent: Sendable, Hashable, CustomStringConvertible {
    case key(String)
    case index(Int)

    /// The node's path as a JSON pointer, for messages.
    public var description: String {
        switch self {
        case .key(let k): k
        case .index(let i): String(i)
        }
    }
}

extension [PathComponent] {
    /// RFC 6901 JSON pointer text (`/rules/0/condition`).
    public var jsonPointer: String {
        var s = ""
        for c in self {
            s += "/"
            switch c {
            case .key(let k): s += k.escapedPointerToken
            case .index(let i): s += String(i)
            }
        }
        return s
    }
}

/// The document a cursor walks: its root value and source map, shared by every cursor into it, so a
/// cursor costs one reference instead of a copy of the map.
final class CursorSource: Sendable {
    let root: Value
    let map: SourceMap

    init(root: Value, map: SourceMap) {
        self.root = root
        self.map = map
    }

    /// The path from the root to the node of entry `target`, found by descending through spans.
    func path(to target: Int) -> [PathComponent] {
        var out: [PathComponent] = []
        var v = root
        var e = 0
        while e != target {
            let end = e + Int(map.entries[e].span)
            var c = e + 1
            var n = 0
            while c < end {
                let s = Int(map.entries[c].span)
                if target < c + s { break }
                c += s
                n += 1
            }
            guard c < end else { return out }
            switch v {
            case .object(let o) where n < o.count:
                out.append(.key(o.key(at: n)))
                v = o.value(at: n)
            case .array(let a) where n < a.count:
                out.append(.index(n))
                v = a[n]
            default:
                return out
            }
            e = c
        }
        return out
    }
}

/// A value inside a document together with where it is: the tool loaders use to walk input and point
/// diagnostics at the exact node.
///
/// Walking is cheap: a child cursor holds the value, the shared document and an entry number; its path
/// (for JSON pointers in diagnostics) is worked out from the source map only when asked for. Nodes with
/// no entry of their own (inside an expanded YAML alias, or in a document read without a map) carry the
/// components below the last entry explicitly.
public struct ValueCursor: Sendable {
    /// The node's value.
    public let value: Value
    let source: CursorSource?
    /// The node's source-map entry (or the nearest ancestor's that lends it), -1 for none.
    let entry: Int
    /// Path components below `entry` (empty in the common case).
    let suffix: [PathComponent]

    init(value: Value, source: CursorSource?, entry: Int, suffix: [PathComponent]) {
        self.value = value
        self.source = source
        self.entry = entry
        self.suffix = suffix
    }

    init(document: Document) {
        if let map = document.sourceMap, !map.entries.isEmpty {
            self.init(value: document.value, source: CursorSource(root: document.value, map: map), entry: 0, suffix: [])
        } else {
            self.init(value: document.value, source: nil, entry: -1, suffix: [])
        }
    }

    /// Wraps a value that has no source (built in code).
    public init(detached value: Value, path: [PathComponent] = []) {
        self.init(value: value, source: nil, entry: -1, suffix: path)
    }

    /// The path from the document root.
    public var path: [PathComponent] {
        guard let source, entry >= 0 else { return suffix }
        let head = source.path(to: entry)
        return suffix.isEmpty ? head : head + suffix
    }

    /// Where the node starts, if known.
    public var location: SourceLocation? {
        guard let source, entry >= 0 else { return nil }
        return source.map.location(of: entry)
    }

    /// Where the key naming this node is, falling back to the node itself.
    public var keyLocation: SourceLocation? {
        guard let source, entry >= 0 else { return nil }
        return source.map.keyLocation(of: entry) ?? source.map.location(of: entry)
    }

    /// The node's path as a JSON pointer (RFC 6901).
    public var pointer: String { path.jsonPointer }

    /// The member `key` of an object node.
    public subscript(key: String) -> ValueCursor? {
        guard case .object(let o) = value, let i = o.index(forKey: key) else { return nil }
        return child(o.value(at: i), entry: childEntry(i), component: .key(o.key(at: i)))
    }

    /// The element `index` of an array node.
    public subscript(index: Int) -> ValueCursor? {
        guard case .array(let a) = value, a.indices.contains(index) else { return nil }
        return child(a[index], entry: childEntry(index), component: .index(index))
    }

    /// The members of an object node, in order (empty for other kinds).
    public var members: [(key: String, value: ValueCursor)] {
        var out: [(key: String, value: ValueCursor)] = []
        forEachMember { out.append(($0, $1)) }
        return out
    }

    /// Calls `body` with each member of an object node, in order, without building an array of them.
    public func forEachMember(_ body: (String, ValueCursor) throws -> Void) rethrows {
        guard case .object(let o) = value else { return }
        var entries = ChildEntries(of: self)
        for i in 0..<o.count {
            let k = o.key(at: i)
            try body(k, child(o.value(at: i), entry: entries.next(), component: .key(k)))
        }
    }

    /// Calls `body` with each member's key, value and position, making no cursor: for loaders that
    /// read scalar members directly and need a member's cursor (`member(at:)`) only for a diagnostic or
    /// to walk below it. A cursor costs reference counts, and most members of rules are scalars.
    @inlinable
    public func forEachMemberValue(_ body: (String, Value, Int) throws -> Void) rethrows {
        guard case .object(let o) = value else { return }
        for i in 0..<o.count { try body(o.key(at: i), o.value(at: i), i) }
    }

    /// The cursor of the member at `position` of an object node (nil for other kinds or out of range).
    public func member(at position: Int) -> ValueCursor? {
        guard case .object(let o) = value, position >= 0, position < o.count else { return nil }
        return child(o.value(at: position), entry: childEntry(position), component: .key(o.key(at: position)))
    }

    /// Calls `body` with each element of an array node, without building an array of cursors.
    public func forEachElement(_ body: (Int, ValueCursor) throws -> Void) rethrows {
        guard case .array(let a) = value else { return }
        var entries = ChildEntries(of: self)
        for i in a.indices { try body(i, child(a[i], entry: entries.next(), component: .index(i))) }
    }

    /// The elements of an array node (empty for other kinds).
    public var elements: [ValueCursor] {
        guard case .array(let a) = value else { return [] }
        var entries = ChildEntries(of: self)
        return a.indices.map { child(a[$0], entry: entries.next(), component: .index($0)) }
    }

    private func child(_ v: Value, entry childEntry: Int, component: PathComponent) -> ValueCursor {
        if childEntry >= 0 && suffix.isEmpty { return ValueCursor(value: v, source: source, entry: childEntry, suffix: []) }
        return ValueCursor(value: v, source: source, entry: entry, suffix: suffix + [component])
    }

    /// The entry of child `position`, or -1 when this node lends its own entry to its children.
    private func childEntry(_ position: Int) -> Int {
        guard let source, entry >= 0, suffix.isEmpty else { return -1 }
        return source.map.childEntry(of: entry, position: position) ?? -1
    }

    /// The entries of a node's children in order, one step each (linear, unlike repeated subscripts);
    /// -1 where the node lends its own entry.
    private struct ChildEntries {
        let entries: [SourceMap.Entry]
        var upcoming: Int
        let end: Int

        init(of c: ValueCursor) {
            guard let source = c.source, c.entry >= 0, c.suffix.isEmpty else {
                entries = []
                upcoming = -1
                end = -1
                return
            }
            entries = source.map.entries
            end = c.entry + Int(entries[c.entry].span)
            upcoming = c.entry + 1 < end ? c.entry + 1 : -1
        }

        mutating func next() -> Int {
            let e = upcoming
            if e >= 0 {
                upcoming = e + Int(entries[e].span)
                if upcoming >= end { upcoming = -1 }
            }
            return e
        }
    }
}
