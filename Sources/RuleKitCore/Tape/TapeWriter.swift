// Writing a tape as compact JSON, alone or merged with a patch, without making a tree of `Value`s.
//
// Invariants: those of `JSONTape.swift` — a well-formed pre-order layout whose string ranges the reader
// checked, keys that are plain ASCII with no escapes, no key repeated in an object — and a view lent for
// one call (`withUnsafeView`). A string outside the arena was read with no escape and no control
// character, so its bytes are exactly what `JSONWriter` writes between the quotes. Recursion follows the
// tape's containers, whose depth the reader bounded.
// The plain reference is `JSONWriter` on the `Value` the tape stands for, merged by `EventDataMerge`:
// `DataOverlayTests` and the json fuzz target compare the bytes.

extension JSONTape {
    /// Appends the object as compact JSON: the bytes `JSONWriter` writes for `object()`, with no tree made.
    public func writeCompact(to out: inout [UInt8]) {
        withUnsafeView { $0.writeCompact(0, to: &out) }
    }
}

extension UnsafeTapeView {
    /// Appends node `i` as compact JSON: the bytes `JSONWriter` writes for `value(at: i)`.
    package func writeCompact(_ i: Int, to out: inout [UInt8]) {
        let n = nodes[i]
        switch n.kind {
        case .null: JSONWriter.append("null", to: &out)
        case .bool: JSONWriter.append(n.payload != 0 ? "true" : "false", to: &out)
        case .int: JSONWriter.writeInt(Int64(bitPattern: n.payload), to: &out)
        case .double: out.append(contentsOf: JSONWriter.doubleText(Double(bitPattern: n.payload)).utf8)
        case .string: writeString(i, to: &out)
        case .array, .object:
            // Elements, or members: a key, ':', then the value like an element.
            let object = n.kind == .object
            out.append(object ? 0x7B : 0x5B)
            var j = i + 1
            for k in 0..<Int(n.count) {
                if k > 0 { out.append(0x2C) }
                if object {
                    writeString(j, to: &out)
                    out.append(0x3A)
                    j += 1
                }
                writeCompact(j, to: &out)
                j = next(j)
            }
            out.append(object ? 0x7D : 0x5D)
        }
    }

    /// A string node as a JSON string: its bytes as read, or re-escaped when it was decoded into the arena.
    @inline(__always)
    func writeString(_ i: Int, to out: inout [UInt8]) {
        if nodes[i].flags & JSONTape.Node.arenaFlag != 0 {
            JSONWriter.writeString(bytes: bytes(i), to: &out)
        } else {
            out.append(0x22)
            out.append(contentsOf: bytes(i))
            out.append(0x22)
        }
    }

    /// Appends `EventDataMerge.merge(to: <object node i>, from: patch, overwrite:)` as compact JSON (an
    /// absent patch: the object as the merge leaves it, nulls and all that step 2 of the merge drops gone).
    /// False when a key at a merged level holds `[*]` (the wildcard step is the reference's alone) or a
    /// patch key there is not ASCII: `out` then holds part of a write, for the caller to drop.
    ///
    /// With `verbatim`, the text of object node `i` (its braces included), what the merge leaves as it was
    /// read is copied from there, byte for byte, and only what it changes is encoded: a member the patch
    /// does not name and the merge does not clean, the elements an array had before the patch's were
    /// appended. The result then reads as the same JSON, and is `JSONWriter`'s text wherever the input was
    /// (compact input written by a JSON writer: every test's and benchmark's input).
    package func writeMerged(
        _ i: Int, _ patch: ValueObject?, overwrite: Bool, verbatim span: Range<Int>? = nil, to out: inout [UInt8]
    ) -> Bool {
        let members = patch?.count ?? 0
        // Which of the patch's members the object has (the rest are added after its own).
        var matched = members <= 64 ? UInt64(0) : UInt64.max
        var extra: [Bool] = members <= 64 ? [] : [Bool](repeating: false, count: members)
        if let patch {
            // Keys are compared by their bytes here, by canonical equivalence in the reference: they agree
            // on ASCII keys (tape keys are ASCII; a non-ASCII key may equal one, as "\u{212A}" equals "K").
            for p in 0..<members {
                var key = patch.key(at: p)
                guard key.utf8.allSatisfy({ $0 < 0x80 }), key.withUTF8({ EventDataMerge.wildcardStart($0) }) == nil
                else { return false }
            }
        }
        out.append(0x7B)
        var first = true
        var j = i + 1
        let count = Int(nodes[i].count)
        for m in 0..<count {
            let keyNode = j
            let v = j + 1
            j = next(v)
            // Where the value's text is, when the object's is known (the next key, if any, bounds it).
            let text = span.flatMap { valueSpan(key: keyNode, nextKey: m + 1 < count ? j : nil, in: $0) }
            let key = bytes(keyNode)
            if EventDataMerge.wildcardStart(key) != nil { return false }
            var new: Value?
            if let patch {
                // A few members are compared in place; a large patch is asked by key (its own index).
                let found =
                    members <= 16
                    ? (0..<members).first { Self.sameKey(patch.key(at: $0), key) }
                    : patch.index(forKey: String(decoding: key, as: UTF8.self))
                if let p = found {
                    new = patch.value(at: p)
                    if members <= 64 { matched |= 1 << UInt64(p) } else { extra[p] = true }
                }
            }
            // What the merge leaves at this key: the tape's value (cleaned, as step 2 leaves it), the
            // patch's, the two objects merged, or the two arrays concatenated (whatever the flag).
            let kind = nodes[v].kind
            var replacement: Value?
            var mergedObject: ValueObject?
            var appended: [Value]?
            switch (kind, new) {
            case (.object, .object(let o)?): mergedObject = o
            case (.array, .array(let a)?): appended = a
            case (_, let n?) where overwrite: replacement = n
            default: break
            }
            if let replacement {
                if case .null = replacement { continue }
            } else if kind == .null && mergedObject == nil && appended == nil {
                continue
            }
            separate(&first, &out)
            writeString(keyNode, to: &out)
            out.append(0x3A)
            if let replacement {
                Self.writeCleaned(replacement, overwrite: overwrite, to: &out)
            } else if let appended {
                out.append(0x5B)
                if let text, nodes[v].count > 0 {
                    // The elements as read: the text inside the brackets, its edges' whitespace left out.
                    out.append(contentsOf: self.text[trimmed((text.lowerBound + 1)..<(text.upperBound - 1))])
                } else {
                    var e = v + 1
                    for k in 0..<Int(nodes[v].count) {
                        if k > 0 { out.append(0x2C) }
                        writeCompact(e, to: &out)
                        e = next(e)
                    }
                }
                for (k, x) in appended.enumerated() {
                    if k > 0 || nodes[v].count > 0 { out.append(0x2C) }
                    JSONWriter.writeCompact(x, to: &out)
                }
                out.append(0x5D)
            } else if kind == .object && (mergedObject != nil || text == nil || !isClean(v)) {
                guard writeMerged(v, mergedObject, overwrite: overwrite, verbatim: text, to: &out) else { return false }
            } else if let text {
                out.append(contentsOf: self.text[text])
            } else {
                writeCompact(v, to: &out)
            }
        }
        // The patch's own keys, in its order.
        if let patch {
            for p in 0..<members {
                if members <= 64 ? matched & (1 << UInt64(p)) != 0 : extra[p] { continue }
                let new = patch.value(at: p)
                if case .null = new { continue }
                separate(&first, &out)
                JSONWriter.writeString(patch.key(at: p), to: &out)
                out.append(0x3A)
                Self.writeCleaned(new, overwrite: overwrite, to: &out)
            }
        }
        out.append(0x7D)
        return true
    }

    /// Whether the merge's step 2 leaves object node `i` as it is: true when `writeMerged(i, nil, ...)`
    /// writes exactly what `writeCompact(i)` writes. It does unless a member at some object depth (arrays
    /// are not cleaned) is null, which step 2 drops, or a key there holds `[*]`, which `writeMerged` leaves
    /// to the reference. The reader's flag when it set it (invariant 9: every event written with attached
    /// data asks, and the walk reads every node of the data, out of this core's cache), else the walk.
    package func isClean(_ i: Int) -> Bool {
        nodes[i].flags & JSONTape.Node.cleanFlag != 0 || cleanByWalk(i)
    }

    /// `isClean` by a walk of the nodes, nothing written and no flag read: the plain reference
    /// (`DataOverlayTests` compares it with the two writes, and the flag with it).
    package func cleanByWalk(_ i: Int) -> Bool {
        var j = i + 1
        for _ in 0..<Int(nodes[i].count) {
            let v = j + 1
            if EventDataMerge.wildcardStart(bytes(j)) != nil { return false }
            switch nodes[v].kind {
            case .null: return false
            case .object: if !cleanByWalk(v) { return false }
            default: break
            }
            j = next(v)
        }
        return true
    }

    /// The text of the value of the member keyed by node `key`, in the object whose text (braces included)
    /// is `object`; `nextKey` is the next member's key node (nil: the last member). From the key's closing
    /// quote past ':' to the next key's opening quote before ',' (or the object's '}'), whitespace left out
    /// at both ends. nil when the text is not laid out so (then the value is encoded instead).
    func valueSpan(key: Int, nextKey: Int?, in object: Range<Int>) -> Range<Int>? {
        guard object.lowerBound >= 0, object.upperBound <= text.count, object.count >= 2 else { return nil }
        let k = nodes[key].payload
        var start = Int(k & 0xFFFF_FFFF) + Int(k >> 32) + 1
        start = skipSpace(from: start, below: object.upperBound)
        guard start < object.upperBound, text[start] == UInt8(ascii: ":") else { return nil }
        start = skipSpace(from: start + 1, below: object.upperBound)
        var end: Int
        if let nextKey {
            // The next key's opening quote, then back over whitespace, ',' and whitespace.
            end = spaceBefore(Int(nodes[nextKey].payload & 0xFFFF_FFFF) - 1, above: start)
            guard end > start, text[end - 1] == UInt8(ascii: ",") else { return nil }
            end = spaceBefore(end - 1, above: start)
        } else {
            end = spaceBefore(object.upperBound - 1, above: start)
        }
        return end > start ? start..<end : nil
    }

    /// `range` without the whitespace at its two ends.
    private func trimmed(_ range: Range<Int>) -> Range<Int> {
        let start = skipSpace(from: range.lowerBound, below: range.upperBound)
        return start..<max(start, spaceBefore(range.upperBound, above: start))
    }

    /// The first index from `i` (below `limit`) that is not JSON whitespace, or `limit`.
    private func skipSpace(from i: Int, below limit: Int) -> Int {
        var i = i
        while i < limit && Self.isSpace(text[i]) { i += 1 }
        return i
    }

    /// The index just past the last byte before `i` (above `limit`) that is not JSON whitespace.
    private func spaceBefore(_ i: Int, above limit: Int) -> Int {
        var i = i
        while i > limit && Self.isSpace(text[i - 1]) { i -= 1 }
        return i
    }

    @inline(__always)
    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    @inline(__always)
    private func separate(_ first: inout Bool, _ out: inout [UInt8]) {
        if first { first = false } else { out.append(0x2C) }
    }

    /// A patch's value as the merge leaves it: objects re-merged with nothing (the reference, on the
    /// patch's own small tree), anything else as it is.
    private static func writeCleaned(_ v: Value, overwrite: Bool, to out: inout [UInt8]) {
        if case .object(let o) = v {
            JSONWriter.writeCompact(EventDataMerge.merge(to: o, from: [:], overwrite: overwrite), to: &out)
        } else {
            JSONWriter.writeCompact(v, to: &out)
        }
    }

    /// Whether a patch key is the tape key `bytes` (equal UTF-8).
    @inline(__always)
    private static func sameKey(_ key: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let u = key.utf8
        return u.count == bytes.count && u.elementsEqual(bytes)
    }
}
