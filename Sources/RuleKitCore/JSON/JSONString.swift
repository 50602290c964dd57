// Invariants: as `JSONReader.swift` — strings are decoded from the lent input buffer into new `String`s,
// every byte index checked against the buffer's count, UTF-8 validated before a string is made.

extension JSONParser {
    /// Parses a string token at `pos` (which holds the opening quote).
    ///
    /// The fast path (no escapes) validates and copies the bytes once; escapes go through a scratch
    /// buffer. Surrogate pairs must be complete.
    mutating func parseString() throws(DiagnosticError) -> String {
        let open = pos
        pos += 1
        let start = pos
        var high: UInt8 = 0
        switch scanToStringStop(&high) {
        case UInt8(ascii: "\""):
            // ASCII needs no UTF-8 validation.
            let s = try makeString(UnsafeBufferPointer(rebasing: buf[start..<pos]), at: start, ascii: high < 0x80)
            if high >= 0x80 { sawNonASCII(at: start) }
            pos += 1
            return s
        case UInt8(ascii: "\\"):
            sawNonASCII(at: start)
            return try parseEscapedString(start: start, open: open)
        case let c?:
            throw error("control character \(describe(c)) must be escaped in a string")
        case nil:
            throw error("unterminated string", at: open)
        }
    }

    /// Moves `pos` through a string's plain bytes to the first that ends them: the closing quote, a
    /// backslash or a control character, which it returns (nil at the end of the input). `high`'s top bit
    /// says whether a byte passed was not ASCII. The one scan of string text, for both readers.
    @inline(__always)
    mutating func scanToStringStop(_ high: inout UInt8) -> UInt8? {
        while pos < buf.count {
            skipPlainStringBytes(&high)
            guard pos < buf.count else { return nil }
            let c = buf[pos]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { return c }
            high |= c
            pos += 1
        }
        return nil
    }

    /// Moves `pos` past the bytes of a string that need no attention (anything but '"', '\\' and control
    /// characters), eight at a time, folding them into `high` (its top bit: some byte was not ASCII).
    /// Stops at the first byte that needs attention, or where fewer than eight bytes are left.
    @inline(__always)
    mutating func skipPlainStringBytes(_ high: inout UInt8) {
        guard let base = buf.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        var seen: UInt64 = 0
        while pos + 8 <= buf.count {
            let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: pos, as: UInt64.self))
            let stops = Self.stopBytes(w)
            if stops != 0 {
                let plain = stops.trailingZeroBitCount >> 3
                if plain > 0 { seen |= w & (UInt64.max >> (64 - 8 * plain)) }
                pos += plain
                break
            }
            seen |= w
            pos += 8
        }
        if seen & 0x8080_8080_8080_8080 != 0 { high |= 0x80 }
    }

    /// The top bit of each byte of `w` that ends a run of plain string bytes: '"', '\\' or below 0x20.
    /// Bits above the lowest may be false (a borrow carries up), so only the lowest is read.
    @inline(__always)
    static func stopBytes(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = w ^ (ones &* 0x22)
        let backslash = w ^ (ones &* 0x5C)
        return ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (w &- ones &* 0x20) & ~w)
            & 0x8080_8080_8080_8080
    }

    /// Notes that the line holds non-ASCII text from `offset` on (columns past it count characters).
    /// Escaped strings are noted too: the scan for them stops at the escape.
    @inline(__always)
    mutating func sawNonASCII(at offset: Int) {
        if offset < firstNonASCII { firstNonASCII = offset }
    }

    /// Parses an object key at `pos`, noting its hash and whether it is ASCII (for the duplicate check)
    /// and whether it holds a '.' (`anyDot`), all in the one scan of its bytes. `parseString`'s loop
    /// with that per-byte work added: kept apart so string values, half of all strings, skip it.
    mutating func parseKey(_ info: inout KeyInfo, _ anyDot: inout Bool) throws(DiagnosticError) -> String {
        let open = pos
        pos += 1
        let start = pos
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var high: UInt8 = 0
        var dot = false
        while pos < buf.count {
            let c = buf[pos]
            if c == UInt8(ascii: "\"") {
                let s = try makeString(UnsafeBufferPointer(rebasing: buf[start..<pos]), at: start, ascii: high < 0x80)
                if high >= 0x80 { sawNonASCII(at: start) }
                pos += 1
                info.hash = hash
                info.ascii = high < 0x80
                if dot { anyDot = true }
                return s
            }
            if c == UInt8(ascii: "\\") {
                sawNonASCII(at: start)
                let s = try parseEscapedString(start: start, open: open)
                hash = 0xCBF2_9CE4_8422_2325
                high = 0
                for b in s.utf8 {
                    hash = (hash ^ UInt64(b)) &* 0x100_0000_01B3
                    high |= b
                    if b == 0x2E { anyDot = true }
                }
                info.hash = hash
                info.ascii = high < 0x80
                return s
            }
            if c < 0x20 { throw error("control character \(describe(c)) must be escaped in a string") }
            hash = (hash ^ UInt64(c)) &* 0x100_0000_01B3
            high |= c
            if c == 0x2E { dot = true }
            pos += 1
        }
        throw error("unterminated string", at: open)
    }

    mutating func makeString(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, ascii: Bool = false) throws(DiagnosticError) -> String {
        guard bytes.count <= limits.maxScalarBytes else {
            throw error(
                "string of \(bytes.count) bytes is over the limit of \(limits.maxScalarBytes)",
                at: offset, code: .limitExceeded)
        }
        // `String(validating:)` is generic and unspecialized here (a metadata lookup per call); checking
        // the bytes ourselves and then decoding is several times faster on short strings.
        guard ascii || isValidUTF8(bytes) else { throw error("invalid UTF-8 in a string", at: offset) }
        if interner != nil { return interner!.string(bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    mutating func parseEscapedString(start: Int, open: Int) throws(DiagnosticError) -> String {
        var out: [UInt8] = Array(UnsafeBufferPointer(rebasing: buf[start..<pos]))
        while pos < buf.count {
            let c = buf[pos]
            if c == UInt8(ascii: "\"") {
                pos += 1
                return try out.withUnsafeBufferPointer { (b) throws(DiagnosticError) -> String in
                    try makeString(b, at: start)
                }
            }
            if c < 0x20 { throw error("control character \(describe(c)) must be escaped in a string") }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                pos += 1
                continue
            }
            let escAt = pos
            pos += 1
            guard pos < buf.count else { break }
            let e = buf[pos]
            pos += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(at: escAt)
                if (0xD800...0xDBFF).contains(scalar) {
                    guard pos + 1 < buf.count, buf[pos] == UInt8(ascii: "\\"), buf[pos + 1] == UInt8(ascii: "u") else {
                        throw error("lone high surrogate \\u\(hexText(scalar)) in a string", at: escAt)
                    }
                    let lowAt = pos
                    pos += 2
                    let low = try hex4(at: lowAt)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw error("high surrogate \\u\(hexText(scalar)) not followed by a low surrogate", at: escAt)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("lone low surrogate \\u\(hexText(scalar)) in a string", at: escAt)
                }
                appendUTF8(scalar, to: &out)
            default:
                throw error("invalid escape '\\\(Character(UnicodeScalar(e)))' in a string", at: escAt)
            }
            if out.count > limits.maxScalarBytes {
                throw error("string is over the limit of \(limits.maxScalarBytes) bytes", at: open, code: .limitExceeded)
            }
        }
        throw error("unterminated string", at: open)
    }

    func hexText(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    mutating func hex4(at escAt: Int) throws(DiagnosticError) -> UInt32 {
        guard pos + 4 <= buf.count else { throw error("\\u needs four hex digits", at: escAt) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = buf[pos]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - 0x61 + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - 0x41 + 10
            default: throw error("\\u needs four hex digits", at: escAt)
            }
            v = v << 4 | UInt32(d)
            pos += 1
        }
        return v
    }
}

/// Appends the UTF-8 encoding of a scalar value (already checked to be a valid scalar).
func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
    switch v {
    case 0..<0x80: out.append(UInt8(v))
    case 0x80..<0x800:
        out.append(UInt8(0xC0 | (v >> 6)))
        out.append(UInt8(0x80 | (v & 0x3F)))
    case 0x800..<0x10000:
        out.append(UInt8(0xE0 | (v >> 12)))
        out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
        out.append(UInt8(0x80 | (v & 0x3F)))
    default:
        out.append(UInt8(0xF0 | (v >> 18)))
        out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
        out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
        out.append(UInt8(0x80 | (v & 0x3F)))
    }
}

/// Whether `b` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
func isValidUTF8(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    let n = b.count
    while i < n {
        let c = b[i]
        if c < 0x80 {
            i += 1
            continue
        }
        let need: Int
        var lo: UInt8 = 0x80
        var hi: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: need = 1
        case 0xE0:
            need = 2
            lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: need = 2
        case 0xED:
            need = 2
            hi = 0x9F
        case 0xF0:
            need = 3
            lo = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4:
            need = 3
            hi = 0x8F
        default: return false
        }
        guard i + need < n else { return false }
        let second = b[i + 1]
        guard second >= lo && second <= hi else { return false }
        var k = 2
        while k <= need {
            guard b[i + k] & 0xC0 == 0x80 else { return false }
            k += 1
        }
        i += need + 1
    }
    return true
}
