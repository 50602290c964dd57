// Glob matching of `pattern`s that are literals and gaps, over a string's UTF-8 bytes in place.
//
// Invariants: the bytes are lent for the call (`withUTF8`) and only read, every slice taken inside the
// buffer's bounds; nothing keeps them. The plain reference is the ICU regex of the same pattern
// (`Pattern.regexFallback`), which the JSON-Schema-Test-Suite cases and the `schema` fuzz target exercise.
internal import Foundation

extension Pattern {
    /// Whether `glob` matches `text`.
    static func match(_ g: Glob, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { match(g, $0[...]) }
    }

    /// Glob matching on bytes: literals in order, gaps of at least `min` characters between them.
    static func match(_ g: Glob, _ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var pieces = g.pieces[...]
        var t = text
        // Leading literal with ^: must be a prefix.
        if g.anchoredStart, case .literal(let l)? = pieces.first {
            guard t.starts(with: l) else { return false }
            t = t.dropFirst(l.count)
            pieces = pieces.dropFirst()
        }
        // Trailing literal with $: must be a suffix.
        var tailLiteral: [UInt8]?
        if g.anchoredEnd, case .literal(let l)? = pieces.last {
            tailLiteral = l
            pieces = pieces.dropLast()
        }
        var gapMin = 0
        var gapOpen = !g.anchoredStart
        for p in pieces {
            switch p {
            case .any(let m):
                gapMin += m
                gapOpen = true
            case .literal(let l):
                if !gapOpen {
                    guard t.starts(with: l) else { return false }
                    t = t.dropFirst(l.count)
                } else {
                    guard let at = find(l, in: t, from: gapMin) else { return false }
                    t = t[(at + l.count)...]
                }
                gapMin = 0
                gapOpen = false
            }
        }
        if let tail = tailLiteral {
            guard t.count >= tail.count + gapMin else { return false }
            if !gapOpen { return t.elementsEqual(tail) }
            return t.suffix(tail.count).elementsEqual(tail)
        }
        if g.anchoredEnd && !gapOpen { return t.isEmpty }
        return t.count >= gapMin
    }

    static func find(_ l: [UInt8], in t: Slice<UnsafeBufferPointer<UInt8>>, from minOffset: Int) -> Int? {
        guard t.count >= l.count + minOffset else { return nil }
        var i = t.startIndex + minOffset
        while i + l.count <= t.endIndex {
            if t[i..<(i + l.count)].elementsEqual(l) { return i }
            i += 1
        }
        return nil
    }
}
