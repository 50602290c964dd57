// Invariants:
// 1. libyaml's parser reads the input through a pointer lent for the parse (`withUnsafeBufferPointer`);
//    events reach the builder copied out of libyaml (`EventPipe.swift`, invariant 1), and the bytes of a
//    batch only for the call that builds it: strings are copied into `Value`s at once.
// 2. Every `yaml_parser_initialize` is paired with `yaml_parser_delete`, every event with
//    `yaml_event_delete`, on every path (defer), on the thread that pulls the events.
// The plain reference is libyaml's own event stream (`YAMLReader.bareEventPull`), which the `yaml` fuzz
// target holds the reader to, and the yaml-test-suite corpus.
internal import CYAML
internal import RuleKitCore

/// The only code that calls libyaml: pulls parser events and builds values on a frame stack.
///
/// Every `yaml_parser_initialize` is paired with `yaml_parser_delete` and every parsed event with
/// `yaml_event_delete`, right where they are made.
struct LibYAMLParser: ~Copyable {
    let file: String
    let limits: ReaderLimits

    /// An open collection. Its children sit on the shared scratch stacks from `start` on, so each
    /// finished collection is allocated once at its exact size.
    struct Frame {
        var isMapping: Bool
        var start: Int
        /// Keys seen so far, kept only once a mapping grows past a few keys (duplicate check).
        var keySet: Set<String>?
        /// The pending key of a mapping (nil: the next node is a key).
        var key: String?
        var keyMark: (UInt32, UInt32) = (0, 0)
        var keyIsMerge = false
        /// Whether some key of the mapping contains a '.' (see `ValueObject.mayHaveDottedKeys`).
        var anyKeyHasDot = false
        var allKeysASCII = true
        var merges: [(ValueObject, (UInt32, UInt32))] = []
        var entry: Int
        var anchor: String?
        var nodesAtStart: Int
    }

    struct Anchor {
        var value: Value
        var nodes: Int
    }

    var stack: [Frame] = []
    var scratchValues = ScratchStack<Value>(capacity: 256)
    var scratchMembers = ScratchStack<ValueObject.Member>(capacity: 256)
    var anchors: [String: Anchor] = [:]
    var entries: [SourceMap.Entry] = []
    var nodes = 0
    /// Of `nodes`, those that aliases added (the rest are written out in the document).
    var aliasNodes = 0
    var warnings: [Diagnostic] = []
    var documents: [Document] = []
    var root: Value?
    var interner = StringInterner()
    /// Input size, to size the entry table once instead of regrowing it (about one node per 14 bytes).
    var inputSize = 0
    /// Marks made into positions.
    var marks: MarkPositions

    init(file: String, limits: ReaderLimits, input: [UInt8] = []) {
        self.file = file
        self.limits = limits
        marks = MarkPositions(file: file, input: input)
    }

    /// Reads every document of `bytes`; `pipelined` forces the event pull onto a second thread (true) or
    /// keeps it on this one (false), where nil decides by size (`pipelines(size:)`).
    static func parse(_ bytes: [UInt8], file: String, limits: ReaderLimits, pipelined: Bool? = nil)
        throws(DiagnosticError) -> [Document]
    {
        var builder = LibYAMLParser(file: file, limits: limits, input: bytes)
        builder.inputSize = bytes.count
        let split = pipelined ?? pipelines(size: bytes.count)
        let result = bytes.withUnsafeBufferPointer { buf in
            split ? builder.buildPipelined(buf) : builder.buildSequential(buf)
        }
        try result.get()
        return builder.documents
    }

    static func syntaxError(_ parser: yaml_parser_t, input: UnsafeBufferPointer<UInt8>, file: String)
        -> DiagnosticError
    {
        var msg = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        if let ctx = parser.context {
            msg += " (\(String(cString: ctx)) at line \(parser.context_mark.line + 1), column \(parser.context_mark.column + 1))"
        }
        // The reader (encoding, control characters) gives a byte offset, not a mark: its mark is the
        // stream's start. Point at the character, counted as the scanner counts.
        if parser.error == YAML_READER_ERROR {
            if msg == "control characters are not allowed", parser.problem_value >= 0 {
                msg =
                    "control character U+\(String(UInt32(parser.problem_value), radix: 16, uppercase: true).leftPadded(to: 4)) is not allowed"
            }
            let at = Self.location(at: min(max(0, Int(parser.problem_offset)), input.count), of: input, file: file)
            return DiagnosticError(.error(.yamlSyntax, msg, at: at))
        }
        let m = parser.problem_mark
        // At the end of a text without a final line break libyaml's mark stands on a line after the
        // last: point at the end of the text instead.
        let end = Self.endLocation(of: input, file: file)
        let at =
            (Int(m.line) + 1, Int(m.column) + 1) > (end.line, end.column)
            ? end : SourceLocation(file: file, line: Int(m.line) + 1, column: Int(m.column) + 1)
        return DiagnosticError(.error(.yamlSyntax, msg, at: at))
    }

    /// Where the text ends: after its last character, counting line breaks as YAML does (LF, CR, CRLF,
    /// NEL, LS, PS) and columns in characters.
    static func endLocation(of input: UnsafeBufferPointer<UInt8>, file: String) -> SourceLocation {
        location(at: input.count, of: input, file: file)
    }

    /// Where the byte at `offset` (at most the count) stands, counted as `endLocation` counts.
    static func location(at offset: Int, of input: UnsafeBufferPointer<UInt8>, file: String) -> SourceLocation {
        var line = 1
        var column = 1
        var i = 0
        while i < min(offset, input.count) {
            let b = input[i]
            var width = 0
            if b == 0x0A {
                width = 1
            } else if b == 0x0D {
                width = i + 1 < input.count && input[i + 1] == 0x0A ? 2 : 1
            } else if b == 0xC2, i + 1 < input.count, input[i + 1] == 0x85 {
                width = 2
            } else if b == 0xE2, i + 2 < input.count, input[i + 1] == 0x80, input[i + 2] == 0xA8 || input[i + 2] == 0xA9 {
                width = 3
            }
            if width > 0 {
                line += 1
                column = 1
                i += width
                continue
            }
            if b & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return SourceLocation(file: file, line: line, column: column)
    }

    func location(_ m: yaml_mark_t) -> SourceLocation { marks.location(m) }

    mutating func position(_ m: yaml_mark_t, empty: Bool) -> (UInt32, UInt32) { marks.position(m, empty: empty) }

    /// The warning for a plain scalar spelled as a YAML 1.1 boolean (a string in YAML 1.2).
    static func yaml11Boolean(_ bytes: UnsafeBufferPointer<UInt8>, at location: SourceLocation) -> Diagnostic {
        let text = String(decoding: bytes, as: UTF8.self)
        return .warning(
            .yaml11Boolean,
            "'\(text)' is the string \"\(text)\" in YAML 1.2, not a boolean; write true or false, or quote it",
            at: location)
    }

    func fail(_ code: DiagnosticCode, _ message: String, _ m: yaml_mark_t) -> DiagnosticError {
        // A mark on the empty node at the end of a text without a final line break stands on a line after
        // the last (found by fuzz-yaml: `{  <<`): an error there points at the end of the text. The end is
        // counted only here, on the error path.
        var at = location(m)
        let end = marks.input.withUnsafeBufferPointer { Self.endLocation(of: $0, file: at.file) }
        if (at.line, at.column) > (end.line, end.column) { at = end }
        return DiagnosticError(.error(code, message, at: at))
    }

    /// The text of `range` of a batch's bytes (a tag's or an anchor's).
    static func text(_ range: Range<Int>?, _ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        range.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
    }

    mutating func handle(_ event: PulledEvent, _ bytes: UnsafeBufferPointer<UInt8>) throws(DiagnosticError) {
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            stack.removeAll(keepingCapacity: true)
            anchors.removeAll(keepingCapacity: true)
            entries = []
            entries.reserveCapacity(inputSize / 14)
            root = nil
            nodes = 0
            aliasNodes = 0
        case YAML_DOCUMENT_END_EVENT:
            documents.append(
                Document(
                    value: root ?? .null, sourceMap: SourceMap(file: file, entries: entries),
                    warnings: warnings))
            warnings = []
        case YAML_SCALAR_EVENT:
            try scalar(event, bytes)
        case YAML_ALIAS_EVENT:
            try alias(event, bytes)
        case YAML_SEQUENCE_START_EVENT:
            try open(mapping: false, anchor: Self.text(event.anchor, bytes), mark: event.mark)
        case YAML_MAPPING_START_EVENT:
            try open(mapping: true, anchor: Self.text(event.anchor, bytes), mark: event.mark)
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            try close(event.mark)
        default:
            break
        }
    }

    /// Whether the next node completes a mapping key rather than a value.
    var expectingKey: Bool {
        guard !stack.isEmpty else { return false }
        let top = stack.count - 1
        return stack[top].isMapping && stack[top].key == nil
    }

    mutating func countNodes(_ n: Int, _ m: yaml_mark_t) throws(DiagnosticError) {
        nodes += n
        if nodes > limits.maxNodes {
            throw fail(
                .limitExceeded,
                "document expands to more than \(limits.maxNodes) nodes (alias expansion limit)", m)
        }
    }

    /// Appends the source entry of a value node, taking the key position from the enclosing mapping.
    mutating func newEntry(_ m: yaml_mark_t, empty: Bool = false) -> Int {
        var keyMark: (UInt32, UInt32) = (0, 0)
        if !stack.isEmpty && stack[stack.count - 1].isMapping { keyMark = stack[stack.count - 1].keyMark }
        let (line, column) = position(m, empty: empty)
        entries.append(SourceMap.Entry(line: line, column: column, keyLine: keyMark.0, keyColumn: keyMark.1))
        return entries.count - 1
    }

    mutating func scalar(_ event: PulledEvent, _ batchBytes: UnsafeBufferPointer<UInt8>) throws(DiagnosticError) {
        let m = event.mark
        try countNodes(1, m)
        guard event.value.count <= limits.maxScalarBytes else {
            throw fail(
                .limitExceeded, "scalar of \(event.value.count) bytes is over the limit of \(limits.maxScalarBytes)", m)
        }
        let bytes = UnsafeBufferPointer(rebasing: batchBytes[event.value])
        let tag = Self.text(event.tag, batchBytes)
        let plain = event.plain
        let anchor = Self.text(event.anchor, batchBytes)

        if expectingKey {
            try setKey(bytes: bytes, plain: plain, tag: tag, mark: m, anchor: anchor)
            return
        }
        let value: Value
        if let tag, tag != "!" {
            switch ScalarResolver.resolveTagged(bytes, tag: tag) {
            case .success(let v): value = v
            case .failure(let e): throw fail(.yamlBadTag, e.message, m)
            }
        } else if plain && tag == nil {
            value = ScalarResolver.resolvePlain(bytes, interner: &interner)
            if case .string = value, ScalarResolver.isYAML11Boolean(bytes) {
                warnings.append(Self.yaml11Boolean(bytes, at: location(m)))
            }
        } else {
            value = .string(interner.string(bytes))
        }
        if let anchor { anchors[anchor] = Anchor(value: value, nodes: 1) }
        let entry = newEntry(m, empty: bytes.isEmpty)
        try deliver(value, entry: entry, mark: m)
    }

    mutating func setKey(
        bytes: UnsafeBufferPointer<UInt8>, plain: Bool, tag: String?, mark m: yaml_mark_t,
        anchor: String?
    ) throws(DiagnosticError) {
        let text = interner.string(bytes)
        if let anchor { anchors[anchor] = Anchor(value: .string(text), nodes: 1) }
        let top = stack.count - 1
        stack[top].key = text
        stack[top].keyMark = position(m, empty: bytes.isEmpty)
        stack[top].keyIsMerge = Self.isMergeKey(bytes, plain: plain, tagged: tag != nil)
        if !stack[top].anyKeyHasDot && bytes.contains(0x2E) { stack[top].anyKeyHasDot = true }
        if stack[top].allKeysASCII && bytes.contains(where: { $0 >= 0x80 }) { stack[top].allKeysASCII = false }
    }

    /// Whether a key is the merge key: a plain, untagged `<<`. Bytes, not strings: comparing every key with
    /// "<<" as a string goes through a slow path for most keys.
    static func isMergeKey(_ bytes: UnsafeBufferPointer<UInt8>, plain: Bool, tagged: Bool) -> Bool {
        plain && !tagged && bytes.count == 2 && bytes[0] == 0x3C && bytes[1] == 0x3C
    }

    mutating func alias(_ event: PulledEvent, _ bytes: UnsafeBufferPointer<UInt8>) throws(DiagnosticError) {
        let name = Self.text(event.anchor, bytes) ?? ""
        let m = event.mark
        guard let a = anchors[name] else {
            throw fail(.yamlSyntax, "alias '*\(name)' refers to no anchor defined before it", m)
        }
        try countNodes(a.nodes, m)
        aliasNodes += a.nodes
        if Self.aliasesOverLimit(nodes: nodes, aliasNodes: aliasNodes, limits) {
            throw fail(
                .limitExceeded,
                "aliases expand to \(aliasNodes) nodes, over \(limits.maxAliasExpansion)× the \(nodes - aliasNodes) nodes written in the document (alias expansion limit)",
                m)
        }
        if expectingKey {
            let key: String
            switch a.value {
            case .string(let s): key = s
            case .array, .object: throw fail(.yamlUnsupported, "a mapping key must be a scalar, not a collection", m)
            default: key = JSONWriter.string(a.value)
            }
            let top = stack.count - 1
            stack[top].key = key
            stack[top].keyMark = position(m, empty: false)
            stack[top].keyIsMerge = false
            if key.utf8.contains(0x2E) { stack[top].anyKeyHasDot = true }
            if key.utf8.contains(where: { $0 >= 0x80 }) { stack[top].allKeysASCII = false }
            return
        }
        let entry = newEntry(m)
        try deliver(a.value, entry: entry, mark: m)
    }

    /// Whether aliases expanding to `aliasNodes` of a document's `nodes` are over the expansion limit.
    static func aliasesOverLimit(nodes: Int, aliasNodes: Int, _ limits: ReaderLimits) -> Bool {
        let (ratio, overflow) = (nodes - aliasNodes).multipliedReportingOverflow(by: limits.maxAliasExpansion)
        return !overflow && aliasNodes > max(limits.aliasNodeFloor, ratio)
    }

    mutating func open(mapping: Bool, anchor: String?, mark m: yaml_mark_t) throws(DiagnosticError) {
        if expectingKey {
            throw fail(.yamlUnsupported, "a mapping key must be a scalar; complex keys are not supported", m)
        }
        try countNodes(1, m)
        if stack.count >= limits.maxDepth {
            throw fail(.limitExceeded, "nesting deeper than \(limits.maxDepth) levels", m)
        }
        let entry = newEntry(m)
        stack.append(
            Frame(
                isMapping: mapping, start: mapping ? scratchMembers.count : scratchValues.count,
                entry: entry, anchor: anchor, nodesAtStart: nodes - 1))
    }

    mutating func close(_ m: yaml_mark_t) throws(DiagnosticError) {
        let frame = stack.removeLast()
        let value: Value
        if frame.isMapping {
            var object = ValueObject(
                members: scratchMembers.popArray(from: frame.start),
                anyKeyHasDot: frame.anyKeyHasDot, allKeysASCII: frame.allKeysASCII)
            for (source, mergeMark) in frame.merges {
                for (k, v) in source where object.index(forKey: k) == nil {
                    object.appendNew(key: k, value: v)
                    entries.append(
                        SourceMap.Entry(
                            line: mergeMark.0, column: mergeMark.1,
                            keyLine: mergeMark.0, keyColumn: mergeMark.1))
                }
            }
            value = .object(object)
        } else {
            value = .array(scratchValues.popArray(from: frame.start))
        }
        entries[frame.entry].span = UInt32(entries.count - frame.entry)
        if let anchor = frame.anchor { anchors[anchor] = Anchor(value: value, nodes: nodes - frame.nodesAtStart) }
        try deliver(value, entry: frame.entry, mark: m)
    }

    /// Hands a finished value to its parent (or makes it the document root).
    /// `consuming`: the value moves into its parent's scratch stack (no retain, no later release).
    mutating func deliver(_ value: consuming Value, entry: Int, mark m: yaml_mark_t) throws(DiagnosticError) {
        guard !stack.isEmpty else {
            root = value
            return
        }
        let top = stack.count - 1
        if !stack[top].isMapping {
            scratchValues.append(value)
            return
        }
        let key = stack[top].key.take()!
        let keyMark = stack[top].keyMark
        if stack[top].keyIsMerge {
            // The merge node's own entries are not members: drop them; merged keys get entries at close.
            entries.removeSubrange(entry...)
            switch value {
            case .object(let o): stack[top].merges.append((o, keyMark))
            case .array(let a):
                for element in a {
                    guard case .object(let o) = element else {
                        throw fail(.yamlUnsupported, "a merge key '<<' takes a mapping or a list of mappings", m)
                    }
                    stack[top].merges.append((o, keyMark))
                }
            default:
                throw fail(.yamlUnsupported, "a merge key '<<' takes a mapping or a list of mappings", m)
            }
            return
        }
        if isDuplicate(key, in: top) {
            throw DiagnosticError(
                .error(
                    .yamlDuplicateKey, "duplicate key '\(key)' in a mapping",
                    at: SourceLocation(file: file, line: Int(keyMark.0), column: Int(keyMark.1))))
        }
        scratchMembers.append(ValueObject.Member(key: key, value: value))
    }

    /// Linear for small mappings, a set once a mapping has many keys.
    mutating func isDuplicate(_ key: String, in top: Int) -> Bool {
        let start = stack[top].start
        let count = scratchMembers.count - start
        if stack[top].keySet == nil {
            // Among ASCII keys (this one included: `setKey` noted it), equal keys have equal lengths, read
            // without a call; otherwise canonical equivalence may match keys of different byte lengths.
            let length = stack[top].allKeysASCII ? key.utf8.count : -1
            for i in start..<scratchMembers.count
            where (length < 0 || scratchMembers[i].key.utf8.count == length) && scratchMembers[i].key == key {
                return true
            }
            if count >= 16 {
                var keys = Set<String>(minimumCapacity: count * 2)
                for i in start..<scratchMembers.count { keys.insert(scratchMembers[i].key) }
                stack[top].keySet = keys
            }
            stack[top].keySet?.insert(key)
            return false
        }
        return !stack[top].keySet!.insert(key).inserted
    }
}

/// libyaml's marks as the positions documents (and tapes) keep.
struct MarkPositions {
    let file: String
    /// The text (a reference to the caller's array, not a copy), for positions at its very end.
    let input: [UInt8]
    /// Where the text ends, once asked.
    private var end: SourceLocation?

    init(file: String, input: [UInt8]) {
        self.file = file
        self.input = input
    }

    /// A mark as a location (not moved inside the text: see `position`).
    func location(_ m: yaml_mark_t) -> SourceLocation {
        SourceLocation(file: file, line: Int(m.line) + 1, column: Int(m.column) + 1)
    }

    /// A mark as (line, column), 1-based, inside the text. Only an empty node (a null without text) can
    /// stand at the very end, where libyaml's mark is on a line after the last if the text has no final
    /// line break (its implicit break): such a mark is taken as the end of the text.
    mutating func position(_ m: yaml_mark_t, empty: Bool) -> (UInt32, UInt32) {
        let raw = (UInt32(m.line + 1), UInt32(m.column + 1))
        guard empty else { return raw }
        if end == nil { end = input.withUnsafeBufferPointer { LibYAMLParser.endLocation(of: $0, file: file) } }
        guard let end, (Int(raw.0), Int(raw.1)) > (end.line, end.column) else { return raw }
        return (UInt32(end.line), UInt32(end.column))
    }
}

extension YAMLReader {
    /// Pulls every libyaml event of `bytes` and discards it: the floor any YAML loader is measured
    /// against (benchmarks only). Returns the event count, or nil on a syntax error.
    public static func bareEventPull(_ bytes: [UInt8]) -> Int? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return nil }
        defer { yaml_parser_delete(&parser) }
        return bytes.withUnsafeBufferPointer { buf -> Int? in
            yaml_parser_set_input_string(&parser, buf.baseAddress, buf.count)
            var event = yaml_event_t()
            var count = 0
            while true {
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                let done = event.type == YAML_STREAM_END_EVENT
                yaml_event_delete(&event)
                count += 1
                if done { return count }
            }
        }
    }
}

extension String {
    /// The text with `0` before it up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
