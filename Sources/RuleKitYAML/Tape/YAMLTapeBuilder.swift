// YAML read into a tape (`JSONTape`, assembled by `TapeAssembler`) instead of a `Value` tree with a
// source map: the rules loaders walk it as they walk a JSON rules file's tape.
//
// Invariants:
// 1. Events arrive as the document builder gets them (`YAMLEventSink`: the same pull, on one thread or
//    two); a scalar's bytes are lent for the call and copied into the tape at once.
// 2. The builder takes only what it can hold exactly as the document builder reads it: one document whose
//    root is a mapping, with no tag, no merge key, no anchor on a key, no alias as a key, no complex key,
//    no key that is not plain ASCII, no repeated key, within every limit (counted as the document builder
//    counts them). On anything else it gives up (`refusal`), and the caller reads the text as a `Document`,
//    which then gives the same value, or the error, from the one reader of record.
// 3. Positions are the document's source-map entries: a value's node has its entry's position, a key's
//    node its entry's key position. An alias is a copy of its anchor's nodes; the nodes under the copy
//    have the alias's position (keys: the alias's key position, or the alias's), as a document lends the
//    alias's entry to the nodes under it.
// The plain reference is `LibYAMLParser` (the document): `YAMLTapeTests` (every yaml-test-suite case,
// every rules fixture) and the `yaml` fuzz target require `tape.object()` to equal the document's value,
// and each node's position its source-map entry.
internal import CYAML
public import RuleKitCore

/// Builds a tape from libyaml's events; gives up on anything a tape does not hold as a document would.
struct YAMLTapeBuilder: ~Copyable, YAMLEventSink {
    let file: String
    let limits: ReaderLimits
    var marks: MarkPositions
    var tape: TapeAssembler
    /// The reader's warnings (YAML 1.1 booleans), as the document builder makes them.
    var warnings: [Diagnostic] = []
    var documents = 0
    /// Nodes written and added by aliases, counted as the document builder counts them (invariant 2).
    var nodes = 0
    var aliasNodes = 0
    /// The position of the key just read: an alias that follows it lends it to the keys under its copy.
    var keyPosition = JSONTape.Position(line: 0, column: 0)

    /// An anchored node: its nodes in the tape and how many nodes the document builder counts for it.
    struct Anchor {
        var range: Range<Int>
        var nodes: Int
    }
    var anchors: [String: Anchor] = [:]

    /// An open collection.
    struct Open {
        var isMapping: Bool
        var anchor: String?
        var start: Int
        var nodesAtStart: Int
    }
    var open: [Open] = []

    /// What `handle` throws to give up (invariant 2): never shown, the document reader speaks instead.
    static var refusal: DiagnosticError { DiagnosticError(.error(.yamlUnsupported, "not read as a tape")) }

    init(file: String, limits: ReaderLimits, input: [UInt8]) {
        self.file = file
        self.limits = limits
        marks = MarkPositions(file: file, input: input)
        // About one node per 14 bytes of YAML, as the document builder sizes its source map.
        tape = TapeAssembler(expectedNodes: input.count / 14 + 8, expectedBytes: input.count / 2)
    }

    /// The tape and the warnings, when the text was one document the tape holds.
    consuming func finish() -> (tape: JSONTape, warnings: [Diagnostic])? {
        let warnings = self.warnings
        guard documents == 1, open.isEmpty, let t = tape.finish() else { return nil }
        return (t, warnings)
    }

    mutating func handle(_ event: PulledEvent, _ bytes: UnsafeBufferPointer<UInt8>) throws(DiagnosticError) {
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            guard documents == 1 else { throw Self.refusal }
        case YAML_SCALAR_EVENT:
            try scalar(event, bytes)
        case YAML_ALIAS_EVENT:
            try alias(event, bytes)
        case YAML_SEQUENCE_START_EVENT:
            try begin(mapping: false, event, bytes)
        case YAML_MAPPING_START_EVENT:
            try begin(mapping: true, event, bytes)
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            try end()
        default:
            break
        }
    }

    /// An anchor's name, from its range of the batch's bytes.
    private static func name(_ range: Range<Int>, _ batch: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: batch[range]), as: UTF8.self)
    }

    private mutating func position(_ m: yaml_mark_t, empty: Bool) -> JSONTape.Position {
        let (line, column) = marks.position(m, empty: empty)
        return JSONTape.Position(line: line, column: column)
    }

    private mutating func count(_ n: Int) throws(DiagnosticError) {
        nodes += n
        if nodes > limits.maxNodes { throw Self.refusal }
    }

    private mutating func scalar(_ e: PulledEvent, _ batch: UnsafeBufferPointer<UInt8>) throws(DiagnosticError) {
        try count(1)
        guard e.value.count <= limits.maxScalarBytes, e.tag == nil, !open.isEmpty else { throw Self.refusal }
        let bytes = UnsafeBufferPointer(rebasing: batch[e.value])
        let at = position(e.mark, empty: bytes.isEmpty)
        if tape.expectsKey {
            let merge = LibYAMLParser.isMergeKey(bytes, plain: e.plain, tagged: e.tag != nil)
            guard e.anchor == nil, !merge, tape.key(bytes, at: at) else { throw Self.refusal }
            keyPosition = at
            return
        }
        let start = tape.count
        let ok: Bool
        if e.plain, let v = ScalarResolver.resolvePlainNonString(bytes) {
            ok = tape.scalar(v, at: at)
        } else {
            if e.plain && ScalarResolver.isYAML11Boolean(bytes) {
                warnings.append(LibYAMLParser.yaml11Boolean(bytes, at: marks.location(e.mark)))
            }
            ok = tape.string(bytes, at: at)
        }
        guard ok else { throw Self.refusal }
        if let name = e.anchor { anchors[Self.name(name, batch)] = Anchor(range: start..<tape.count, nodes: 1) }
    }

    private mutating func alias(_ e: PulledEvent, _ batch: UnsafeBufferPointer<UInt8>) throws(DiagnosticError) {
        guard !tape.expectsKey, let name = e.anchor, let a = anchors[Self.name(name, batch)] else { throw Self.refusal }
        try count(a.nodes)
        aliasNodes += a.nodes
        if LibYAMLParser.aliasesOverLimit(nodes: nodes, aliasNodes: aliasNodes, limits) { throw Self.refusal }
        let at = position(e.mark, empty: false)
        let inMapping = open.last?.isMapping ?? false
        guard tape.copy(subtree: a.range, at: at, inner: at, innerKey: inMapping ? keyPosition : at) else { throw Self.refusal }
    }

    private mutating func begin(mapping: Bool, _ e: PulledEvent, _ batch: UnsafeBufferPointer<UInt8>) throws(DiagnosticError) {
        guard !tape.expectsKey, open.count < limits.maxDepth, mapping || !open.isEmpty else { throw Self.refusal }
        try count(1)
        let start = tape.count
        guard tape.begin(object: mapping, at: position(e.mark, empty: false)) else { throw Self.refusal }
        let anchor = e.anchor.map { Self.name($0, batch) }
        open.append(Open(isMapping: mapping, anchor: anchor, start: start, nodesAtStart: nodes - 1))
    }

    private mutating func end() throws(DiagnosticError) {
        guard let o = open.popLast(), tape.end() else { throw Self.refusal }
        if let anchor = o.anchor { anchors[anchor] = Anchor(range: o.start..<tape.count, nodes: nodes - o.nodesAtStart) }
    }
}

extension YAMLReader {
    /// Reads a YAML text that is one mapping into a tape with its nodes' positions (the positions a
    /// `Document`'s source map gives them) and the reader's warnings; nil when the text is not one the tape
    /// holds (see `YAMLTapeBuilder`): `read` then gives its document, or its error. `pipelined` forces the
    /// event pull onto a second thread (true) or keeps it on this one (false); nil decides by size, as
    /// `read` does.
    public static func tape(
        _ bytes: [UInt8], file: String = "<input>", limits: ReaderLimits = .default, pipelined: Bool? = nil
    ) -> (tape: JSONTape, warnings: [Diagnostic])? {
        guard bytes.count <= limits.maxDocumentBytes else { return nil }
        var builder = YAMLTapeBuilder(file: file, limits: limits, input: bytes)
        let split = pipelined ?? LibYAMLParser.pipelines(size: bytes.count)
        let result = bytes.withUnsafeBufferPointer { split ? builder.buildPipelined($0) : builder.buildSequential($0) }
        guard case .success = result else { return nil }
        return builder.finish()
    }
}
