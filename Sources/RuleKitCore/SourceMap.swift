/// Where each node of a parsed document came from, stored flat in document (pre-)order.
///
/// Readers append one entry per node as they go, so keeping locations costs one array append per node
/// instead of a parallel tree. Entry `i` covers `span` entries (itself and its descendants); an object's
/// children follow it in the object's key order, each carrying the position of its key too.
/// A container whose children have no entries of their own (an expanded YAML alias) lends its entry
/// to them: diagnostics inside point at the alias.
public struct SourceMap: Sendable {
    public struct Entry: Sendable, Hashable {
        public var line: UInt32
        public var column: UInt32
        public var keyLine: UInt32
        public var keyColumn: UInt32
        public var span: UInt32

        public init(line: UInt32, column: UInt32, keyLine: UInt32 = 0, keyColumn: UInt32 = 0, span: UInt32 = 1) {
            self.line = line
            self.column = column
            self.keyLine = keyLine
            self.keyColumn = keyColumn
            self.span = span
        }
    }

    public var file: String
    public var entries: [Entry]

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
    public var value: Value
    public var sourceMap: SourceMap?
    /// Non-fatal findings of the reader (for YAML, e.g. YAML 1.1 booleans that stayed strings).
    public var warnings: [Diagnostic]

    public init(value: Value, sourceMap: SourceMap? = nil, warnings: [Diagnostic] = []) {
        self.value = value
        self.sourceMap = sourceMap
        self.warnings = warnings
    }

    /// A cursor at the root, for walking the document with locations.
    public var root: ValueCursor {
        ValueCursor(value: value, map: sourceMap, entry: sourceMap?.entries.isEmpty == false ? 0 : nil, path: [])
    }
}

/// One segment of a path into a `Value`: an object key or an array index.
public enum PathComponent: Sendable, Hashable, CustomStringConvertible {
    case key(String)
    case index(Int)

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
            case .key(let k): s += k.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            case .index(let i): s += String(i)
            }
        }
        return s
    }
}

extension String {
    @usableFromInline func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// A value inside a document together with where it is: the tool loaders use to walk input and point
/// diagnostics at the exact node.
public struct ValueCursor: Sendable {
    public let value: Value
    let map: SourceMap?
    let entry: Int?
    /// The path from the document root.
    public let path: [PathComponent]

    init(value: Value, map: SourceMap?, entry: Int?, path: [PathComponent]) {
        self.value = value
        self.map = map
        self.entry = entry
        self.path = path
    }

    /// Wraps a value that has no source (built in code).
    public init(detached value: Value, path: [PathComponent] = []) {
        self.init(value: value, map: nil, entry: nil, path: path)
    }

    /// Where the node starts, if known.
    public var location: SourceLocation? {
        guard let map, let entry else { return nil }
        return map.location(of: entry)
    }

    /// Where the key naming this node is, falling back to the node itself.
    public var keyLocation: SourceLocation? {
        guard let map, let entry else { return nil }
        return map.keyLocation(of: entry) ?? map.location(of: entry)
    }

    public var pointer: String { path.jsonPointer }

    /// The member `key` of an object node.
    public subscript(key: String) -> ValueCursor? {
        guard case .object(let o) = value, let i = o.index(forKey: key) else { return nil }
        return member(at: i, of: o)
    }

    /// The element `index` of an array node.
    public subscript(index: Int) -> ValueCursor? {
        guard case .array(let a) = value, a.indices.contains(index) else { return nil }
        let child = entry.flatMap { map?.childEntry(of: $0, position: index) } ?? entry
        return ValueCursor(value: a[index], map: map, entry: child, path: path + [.index(index)])
    }

    /// The members of an object node, in order (empty for other kinds).
    public var members: [(key: String, value: ValueCursor)] {
        guard case .object(let o) = value else { return [] }
        let entries = childEntries(count: o.count)
        return (0..<o.count).map { i in
            let k = o.key(at: i)
            return (k, ValueCursor(value: o.value(at: i), map: map, entry: entries[i], path: path + [.key(k)]))
        }
    }

    /// The elements of an array node (empty for other kinds).
    public var elements: [ValueCursor] {
        guard case .array(let a) = value else { return [] }
        let entries = childEntries(count: a.count)
        return a.indices.map { ValueCursor(value: a[$0], map: map, entry: entries[$0], path: path + [.index($0)]) }
    }

    /// The entries of all children in one walk (linear, unlike repeated subscripts).
    private func childEntries(count: Int) -> [Int?] {
        guard let map, let entry, map.entries[entry].span > 1 else { return Array(repeating: entry, count: count) }
        var out = [Int?]()
        out.reserveCapacity(count)
        var c = entry + 1
        let end = entry + Int(map.entries[entry].span)
        for _ in 0..<count {
            out.append(c < end ? c : entry)
            if c < end { c += Int(map.entries[c].span) }
        }
        return out
    }

    private func member(at i: Int, of o: ValueObject) -> ValueCursor {
        let child = entry.flatMap { map?.childEntry(of: $0, position: i) } ?? entry
        return ValueCursor(value: o.value(at: i), map: map, entry: child, path: path + [.key(o.key(at: i))])
    }
}
