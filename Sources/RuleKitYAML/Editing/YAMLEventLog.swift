// An editor's re-read of a rules file after a keystroke: libyaml's events of the whole text, kept, and after
// an edit inside one rule of the `rules` list, the events of that rule alone pulled anew and put in the
// place of its old ones. libyaml's pull is most of reading a large file; the tape is then built from the
// spliced events as from a fresh pull, so everything after the pull (tape, loaders, checks) is unchanged.
//
// Invariants:
// 1. A log is the complete event stream of its text, as `EventBatch.fill` copies it (ranges into `bytes`),
//    with the `rules` list's items found in it: each item's events, its first line and the byte offset where
//    that line starts. A log is made only from a text libyaml reads without error, whose root is a block
//    mapping at column 0 with a block `rules` list, each item starting on a line of its own.
// 2. `update(to:)` splices only when the edit (the bytes between the common prefix and suffix of the two
//    texts) lies inside one item's lines, and that item's new lines, read after a `rules:` line of their own,
//    give exactly one item of a block list and no error. The other items' text is unchanged, so their events
//    are too, moved by the lines the edit added or removed (a mark's line; columns do not move, since their
//    lines are unchanged; mark indexes are not used by the builders). Whatever libyaml would read
//    differently with the neighbours present (an unclosed quote or bracket, a second item, a document
//    marker) makes the item's own read fail or give more than one item, or is refused before it is read (a
//    document marker; a line break taken from the item's end), and the caller reads the text anew.
//    Lines are counted at '\n' only: a text with another of YAML's line breaks (CR, NEL, LS, PS) has no log.
// The plain reference is a fresh `record` of the new text: `YAMLEventLogTests` edits texts at random and
// requires every splice to equal it, event for event.
internal import CYAML
public import RuleKitCore

/// libyaml's events of one YAML rules text, kept so that an edit inside one rule re-reads that rule only.
public struct YAMLEventLog: @unchecked Sendable {
    // @unchecked: only value-type arrays (copied on write) of plain data; PulledEvent holds libyaml's C marks,
    // which are plain integers.
    /// The text the events were read from.
    public private(set) var text: [UInt8]
    private(set) var events: [PulledEvent]
    private(set) var bytes: [UInt8]
    /// The `rules` list's items, in order.
    private(set) var items: [Item]
    /// The event that ends the list, and the byte offset and line (0-based) where the last item's lines end.
    private(set) var listEnd: Int
    private(set) var listEndOffset: Int
    private(set) var listEndLine: Int

    struct Item {
        /// The item's events: `events[range]`.
        var range: Range<Int>
        /// The line of its first event (0-based), and the byte offset where that line starts.
        var line: Int
        var offset: Int
    }

    /// The number of rules the list holds (for tests).
    public var itemCount: Int { items.count }

    /// Records the events of `text`; nil when it is not a text a log holds (invariant 1).
    public static func record(_ text: [UInt8], limits: ReaderLimits = .default) -> YAMLEventLog? {
        guard text.count <= limits.maxDocumentBytes, let (events, bytes) = pull(text) else { return nil }
        return make(text: text, events: events, bytes: bytes)
    }

    /// The log of `new`, when it differs from this log's text by an edit inside one item (invariant 2); nil
    /// otherwise (read `new` anew, with `record`).
    public func updated(to new: [UInt8], limits: ReaderLimits = .default) -> YAMLEventLog? {
        var log = self
        return log.update(to: new, limits: limits) ? log : nil
    }

    /// Makes this the log of `new`, in place, when it differs from this log's text by an edit inside one item
    /// (invariant 2), and says whether it did; otherwise leaves it as it was (read `new` anew, with `record`).
    /// In place, a log held once is changed without a copy of its events.
    public mutating func update(to new: [UInt8], limits: ReaderLimits = .default) -> Bool {
        guard new.count <= limits.maxDocumentBytes, !items.isEmpty else { return false }
        let old = text
        if old == new { return true }
        // The edit: old[p..<oldEnd] became new[p..<newEnd].
        let shorter = min(old.count, new.count)
        var p = 0
        while p < shorter && old[p] == new[p] { p += 1 }
        var s = 0
        while s < shorter - p && old[old.count - 1 - s] == new[new.count - 1 - s] { s += 1 }
        let oldEnd = old.count - s
        let newEnd = new.count - s
        // Lines are counted at '\n': a text with YAML's other line breaks is read anew (the old text has none).
        guard !Self.hasOtherBreaks(new[max(0, p - 2)..<min(new.count, newEnd + 2)]) else { return false }
        let delta = new.count - old.count
        let lineDelta = Self.lines(in: new[p..<newEnd]) - Self.lines(in: old[p..<oldEnd])
        // New events' bytes are appended and the replaced ones left behind: once those outweigh the text, read
        // anew.
        guard self.bytes.count <= 2 * old.count + (1 << 16) else { return false }
        if oldEnd <= items[0].offset {
            return updateHeader(to: new, delta: delta, lineDelta: lineDelta)
        }
        // The item whose lines hold the edit: the last that starts at or before it.
        guard let k = items.lastIndex(where: { $0.offset <= p }) else { return false }
        let itemEnd = k + 1 < items.count ? items[k + 1].offset : listEndOffset
        guard oldEnd <= itemEnd, p < itemEnd || (p == itemEnd && oldEnd == p && k + 1 == items.count) else {
            return false
        }
        // The item's new lines, read after a `rules:` line of their own. They still end in a line break:
        // an edit that took the last one out joined the next line to them.
        let start = items[k].offset
        guard new[itemEnd + delta - 1] == 0x0A, !Self.hasDocumentMarker(new[start..<(itemEnd + delta)]) else { return false }
        var sub: [UInt8] = Array("rules:\n".utf8)
        sub.append(contentsOf: new[start..<(itemEnd + delta)])
        guard let (subEvents, subBytes) = Self.pull(sub), let one = Self.oneItem(subEvents) else { return false }
        // The first event of the item stands on its first line, as the partition has it.
        guard subEvents[one.lowerBound].mark.line == 1 else { return false }

        let itemLine = items[k].line
        let range = items[k].range
        let shift = replace(range, with: subEvents[one], bytes: subBytes, lines: itemLine - 1, lineDelta: lineDelta)
        items[k].range = range.lowerBound..<(range.upperBound + shift)
        moveItems(from: k + 1, events: shift, bytes: delta, lines: lineDelta)
        text = new
        return true
    }

    /// Moves the items from `first` on, and the list's end, by `shift` events, `delta` bytes and `lineDelta`
    /// lines: where an edit before them left them.
    private mutating func moveItems(from first: Int, events shift: Int, bytes delta: Int, lines lineDelta: Int) {
        for j in first..<items.count {
            items[j].range = (items[j].range.lowerBound + shift)..<(items[j].range.upperBound + shift)
            items[j].line += lineDelta
            items[j].offset += delta
        }
        listEnd += shift
        listEndOffset += delta
        listEndLine += lineDelta
    }

    /// Puts `replacement` (events whose ranges point into `source`, their lines moved by `lines`) in the place
    /// of `events[range]`, and moves the events after it by `lineDelta` lines: how many events more there are.
    private mutating func replace(
        _ range: Range<Int>, with replacement: ArraySlice<PulledEvent>, bytes source: [UInt8], lines: Int, lineDelta: Int
    ) -> Int {
        // The events' bytes go at the end; the old ones stay behind unused (`update` reads anew once they
        // outweigh the text).
        let base = bytes.count
        bytes.append(contentsOf: source)
        let moved = replacement.map { e in
            var e = e
            e.value = (e.value.lowerBound + base)..<(e.value.upperBound + base)
            e.tag = e.tag.map { ($0.lowerBound + base)..<($0.upperBound + base) }
            e.anchor = e.anchor.map { ($0.lowerBound + base)..<($0.upperBound + base) }
            e.mark.line += lines
            return e
        }
        events.replaceSubrange(range, with: moved)
        if lineDelta != 0 {
            for i in (range.lowerBound + moved.count)..<events.count { events[i].mark.line += lineDelta }
        }
        return moved.count - range.count
    }

    /// `update`, for an edit that lies in the lines before the first item (invariant 2, for the text
    /// above the list): that text is read again with a one-line item in the first item's place, and its
    /// events up to the list's start replace the old ones. A `%TAG` directive, which changes how the items'
    /// tags read, makes it read anew.
    private mutating func updateHeader(to new: [UInt8], delta: Int, lineDelta: Int) -> Bool {
        let seqStart = events[items[0].range.lowerBound - 1]
        guard seqStart.type == YAML_SEQUENCE_START_EVENT, seqStart.mark.line == items[0].line else { return false }
        let headerEnd = items[0].offset + delta
        guard headerEnd > 0, headerEnd <= new.count, new[headerEnd - 1] == 0x0A else { return false }
        var sub = Array(new[..<headerEnd])
        let tag = Array("%TAG".utf8)
        guard sub.firstRange(of: tag) == nil, text[..<items[0].offset].firstRange(of: tag) == nil else { return false }
        sub.append(contentsOf: repeatElement(UInt8(ascii: " "), count: seqStart.mark.column))
        sub.append(contentsOf: "- x\n".utf8)
        guard let (subEvents, subBytes) = Self.pull(sub), let subLog = Self.make(text: sub, events: subEvents, bytes: subBytes),
            subLog.items.count == 1, subLog.items[0].range.count == 1, subLog.listEnd == subEvents.count - 4
        else { return false }
        let listStart = subLog.items[0].range.lowerBound - 1
        let newSeqStart = subEvents[listStart]
        guard newSeqStart.mark.line == items[0].line + lineDelta, newSeqStart.mark.column == seqStart.mark.column else {
            return false
        }
        let shift = replace(
            0..<items[0].range.lowerBound, with: subEvents[...listStart], bytes: subBytes, lines: 0, lineDelta: lineDelta)
        moveItems(from: 0, events: shift, bytes: delta, lines: lineDelta)
        text = new
        return true
    }

    /// Whether `b` holds a line break other than '\n' (CR, NEL, LS, PS), which libyaml counts as one too.
    static func hasOtherBreaks(_ b: ArraySlice<UInt8>) -> Bool {
        var i = b.startIndex
        while i < b.endIndex {
            switch b[i] {
            case 0x0D: return true
            case 0xC2 where i + 1 < b.endIndex && b[i + 1] == 0x85: return true
            case 0xE2 where i + 2 < b.endIndex && b[i + 1] == 0x80 && (b[i + 2] == 0xA8 || b[i + 2] == 0xA9): return true
            default: i += 1
            }
        }
        return false
    }

    /// Whether a line of `b` is a document marker (`---` or `...` alone or before a space): read alone, the
    /// item's lines would end their document as the whole text's does not.
    static func hasDocumentMarker(_ b: ArraySlice<UInt8>) -> Bool {
        var i = b.startIndex
        while i < b.endIndex {
            if b.endIndex - i >= 3, b[i] == b[i + 1], b[i] == b[i + 2], b[i] == 0x2D || b[i] == 0x2E,
                i + 3 == b.endIndex || [0x20, 0x09, 0x0A].contains(b[i + 3])
            {
                return true
            }
            guard let next = b[i...].firstIndex(of: 0x0A) else { return false }
            i = next + 1
        }
        return false
    }

    /// The newlines in `b`.
    static func lines(in b: ArraySlice<UInt8>) -> Int {
        var n = 0
        for c in b where c == 0x0A { n += 1 }
        return n
    }

    /// The most events a log holds. An event is kept whole (about a hundred bytes), where a read streams
    /// them: past this (a YAML file of some 50 MB) a text is read whole on each check instead.
    static let maxEvents = 4_000_000

    /// Every event of `text`, or nil on libyaml's error or past `maxEvents`.
    static func pull(_ text: [UInt8], maxEvents: Int = maxEvents) -> ([PulledEvent], [UInt8])? {
        text.withUnsafeBufferPointer { input -> ([PulledEvent], [UInt8])? in
            var parser = yaml_parser_t()
            if LibYAMLParser.start(&parser, reading: input) != nil { return nil }
            defer { yaml_parser_delete(&parser) }
            let batch = EventBatch(capacity: maxEvents)
            batch.fill(from: &parser, input: input, file: "")
            guard batch.error == nil, batch.isLast else { return nil }
            return (batch.events, batch.bytes)
        }
    }

    /// In the events of `rules:` followed by one item's lines: the item's events, when they are exactly one
    /// item of a block list and the stream holds nothing else.
    static func oneItem(_ e: [PulledEvent]) -> Range<Int>? {
        let head: [yaml_event_type_t] = [
            YAML_STREAM_START_EVENT, YAML_DOCUMENT_START_EVENT, YAML_MAPPING_START_EVENT, YAML_SCALAR_EVENT,
            YAML_SEQUENCE_START_EVENT,
        ]
        let tail: [yaml_event_type_t] = [
            YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT, YAML_DOCUMENT_END_EVENT, YAML_STREAM_END_EVENT,
        ]
        guard e.count > head.count + tail.count, zip(e, head).allSatisfy({ $0.type == $1 }),
            zip(e.suffix(tail.count), tail).allSatisfy({ $0.type == $1 }), e[4].block
        else { return nil }
        let items = e[head.count..<(e.count - tail.count)]
        guard let end = Self.nodeEnd(items, from: items.startIndex), end == items.endIndex else { return nil }
        return items.startIndex..<items.endIndex
    }

    /// The index after the node that starts at `i`.
    static func nodeEnd(_ e: ArraySlice<PulledEvent>, from i: Int) -> Int? {
        var depth = 0
        var j = i
        while j < e.endIndex {
            switch e[j].type {
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT: depth += 1
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT: depth -= 1
            default: break
            }
            j += 1
            if depth <= 0 { return depth == 0 ? j : nil }
        }
        return nil
    }

    /// A log of `text`'s events with the `rules` list found in them (invariant 1).
    static func make(text: [UInt8], events: [PulledEvent], bytes: [UInt8]) -> YAMLEventLog? {
        guard !hasOtherBreaks(text[...]) else { return nil }
        // The root mapping's members: key, value, key, value, ...
        guard events.count > 3, events[2].type == YAML_MAPPING_START_EVENT, events[2].block, events[2].mark.column == 0
        else { return nil }
        var i = 3
        var listStart: Int?
        while i < events.count, events[i].type != YAML_MAPPING_END_EVENT {
            let key = events[i]
            guard key.type == YAML_SCALAR_EVENT, let valueEnd = nodeEnd(events[...], from: i + 1) else { return nil }
            if key.mark.column == 0, bytes[key.value].elementsEqual("rules".utf8) {
                guard listStart == nil else { return nil }
                listStart = i + 1
            }
            i = valueEnd
        }
        guard let ls = listStart, events[ls].type == YAML_SEQUENCE_START_EVENT, events[ls].block else { return nil }
        // Where each line starts, for the items' offsets.
        var lineStarts = [0]
        for (o, c) in text.enumerated() where c == 0x0A { lineStarts.append(o + 1) }
        var items: [Item] = []
        var j = ls + 1
        while j < events.count, events[j].type != YAML_SEQUENCE_END_EVENT {
            guard let end = nodeEnd(events[...], from: j) else { return nil }
            let line = Int(events[j].mark.line)
            // One item per line at most, each on a line after the one before.
            guard line < lineStarts.count, items.last.map({ $0.line < line }) ?? true else { return nil }
            items.append(Item(range: j..<end, line: line, offset: lineStarts[line]))
            j = end
        }
        guard j < events.count, events[j].mark.column == 0, Int(events[j].mark.line) < lineStarts.count,
            let last = items.last, Int(events[j].mark.line) > last.line
        else { return nil }
        let endLine = Int(events[j].mark.line)
        return YAMLEventLog(
            text: text, events: events, bytes: bytes, items: items, listEnd: j, listEndOffset: lineStarts[endLine],
            listEndLine: endLine)
    }

    /// The events as one batch, for a builder.
    func batch() -> EventBatch {
        let b = EventBatch(capacity: events.count)
        b.events = events
        b.bytes = bytes
        b.isLast = true
        return b
    }
}

extension YAMLReader {
    /// `tape(_:file:limits:pipelined:)` for the text of `log`, built from its events (no libyaml pull).
    public static func tape(
        _ log: YAMLEventLog, file: String = "<input>", limits: ReaderLimits = .default
    ) -> (tape: JSONTape, warnings: [Diagnostic])? {
        guard log.text.count <= limits.maxDocumentBytes else { return nil }
        var builder = YAMLTapeBuilder(file: file, limits: limits, input: log.text)
        guard case .success? = builder.build(log.batch()) else { return nil }
        return builder.finish()
    }
}

extension YAMLEventLog: Equatable {
    /// The same text, the same events (type, line, column, style, and value, tag and anchor bytes, wherever
    /// the bytes are kept) and the same items: what a splice must give, against a fresh `record`.
    public static func == (a: YAMLEventLog, b: YAMLEventLog) -> Bool {
        func same(_ x: Range<Int>?, _ y: Range<Int>?) -> Bool {
            switch (x, y) {
            case (nil, nil): return true
            case (let x?, let y?): return a.bytes[x].elementsEqual(b.bytes[y])
            default: return false
            }
        }
        guard a.text == b.text, a.events.count == b.events.count, a.listEnd == b.listEnd,
            a.listEndOffset == b.listEndOffset, a.listEndLine == b.listEndLine, a.items.count == b.items.count
        else { return false }
        for (x, y) in zip(a.items, b.items) where x.range != y.range || x.line != y.line || x.offset != y.offset {
            return false
        }
        for (x, y) in zip(a.events, b.events) {
            guard x.type == y.type, x.mark.line == y.mark.line, x.mark.column == y.mark.column, x.plain == y.plain,
                x.block == y.block, same(x.value, y.value), same(x.tag, y.tag), same(x.anchor, y.anchor)
            else { return false }
        }
        return true
    }
}
