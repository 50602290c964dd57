// The top level of a request body found without reading its values: an array's elements and an object's
// members as byte ranges, so that each event of an array or envelope body is read on its own as a JSON
// line is (its data into a tape, `BatchBody`), instead of the whole body into one tree of values.
//
// The scanner only finds boundaries: every range it gives is then read by `JSONReader`, which checks it
// under the reader's limits. It skips strings (escapes included) and counts brackets with a counter, not
// recursion. Anything it does not expect makes it answer nil, and the caller reads the whole body with
// `JSONReader` for the located error.

/// Top-level ranges of a JSON text.
enum BodyScanner {
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    static func skipSpace(_ b: [UInt8], _ i: Int) -> Int {
        var j = i
        while j < b.count && isSpace(b[j]) { j += 1 }
        return j
    }

    /// The index just past the value that starts at `i`, or nil when it does not end.
    static func endOfValue(_ b: [UInt8], _ i: Int) -> Int? {
        guard i < b.count else { return nil }
        switch b[i] {
        case UInt8(ascii: "\""):
            return b.stringEnd(at: i)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // One loop over the bytes (an event is most of a body): `containerEnd`, in RuleKitCore.
            return b.containerEnd(at: i)
        default:
            var j = i
            while j < b.count, !isSpace(b[j]), b[j] != UInt8(ascii: ","), b[j] != UInt8(ascii: "]"), b[j] != UInt8(ascii: "}") {
                j += 1
            }
            return j > i ? j : nil
        }
    }

    /// The elements of the array that opens at `start`, and the index past it; nil when it is not a
    /// well-delimited array.
    static func elements(_ b: [UInt8], from start: Int) -> (ranges: [Range<Int>], end: Int)? {
        guard start < b.count, b[start] == UInt8(ascii: "[") else { return nil }
        var ranges: [Range<Int>] = []
        var j = skipSpace(b, start + 1)
        if j < b.count && b[j] == UInt8(ascii: "]") { return ([], j + 1) }
        while true {
            guard let e = endOfValue(b, j) else { return nil }
            ranges.append(j..<e)
            j = skipSpace(b, e)
            guard j < b.count else { return nil }
            if b[j] == UInt8(ascii: "]") { return (ranges, j + 1) }
            guard b[j] == UInt8(ascii: ",") else { return nil }
            j = skipSpace(b, j + 1)
        }
    }

    /// The members of the object that opens at `start` (key ranges with their quotes), and the index past
    /// it; nil when it is not a well-delimited object. The elements of a member named `elementsOf` (an
    /// envelope's `events`), when it is an array, are found in the same pass; or, given
    /// `readingElements`, that array is handed to it (at its `[`), which reads it and answers the index
    /// past it (nil: the object is not taken).
    static func members(
        _ b: [UInt8], from start: Int, elementsOf name: [UInt8] = [], readingElements: ((Int) -> Int?)? = nil
    ) -> (members: [(key: Range<Int>, value: Range<Int>)], end: Int, elements: [Range<Int>]?)? {
        guard start < b.count, b[start] == UInt8(ascii: "{") else { return nil }
        var out: [(key: Range<Int>, value: Range<Int>)] = []
        var elements: [Range<Int>]?
        var j = skipSpace(b, start + 1)
        if j < b.count && b[j] == UInt8(ascii: "}") { return ([], j + 1, nil) }
        while true {
            guard j < b.count, b[j] == UInt8(ascii: "\""), let k = b.stringEnd(at: j) else { return nil }
            var c = skipSpace(b, k)
            guard c < b.count, b[c] == UInt8(ascii: ":") else { return nil }
            c = skipSpace(b, c + 1)
            let e: Int
            let named = !name.isEmpty && k - j == name.count + 2 && b[(j + 1)..<(k - 1)].elementsEqual(name)
            if named, let readingElements, c < b.count, b[c] == UInt8(ascii: "[") {
                guard let end = readingElements(c) else { return nil }
                e = end
            } else if named, let found = Self.elements(b, from: c) {
                elements = found.ranges
                e = found.end
            } else {
                guard let end = endOfValue(b, c) else { return nil }
                e = end
            }
            out.append((j..<k, c..<e))
            j = skipSpace(b, e)
            guard j < b.count else { return nil }
            if b[j] == UInt8(ascii: "}") { return (out, j + 1, elements) }
            guard b[j] == UInt8(ascii: ",") else { return nil }
            j = skipSpace(b, j + 1)
        }
    }
}
