// JSON reader oracle: Foundation's JSONSerialization is an independent parser. Both must accept and
// reject the same texts (but for the documented differences below), give the same value (numbers by
// value), and RuleKit's writer must round-trip what its reader gives.
import Foundation

@testable import RuleKitCore

/// The JSON reader's oracle: Foundation agrees on accept/reject and value; writing round-trips.
public enum JSONOracle {
    static let name = "fuzz-json"

    /// Checks one input; traps (a finding for libFuzzer) on any disagreement.
    public static func check(_ bytes: [UInt8]) {
        // The end of a container or string found over the storage (how a service splits an array body)
        // against the byte-by-byte references, from the input's first sixteen brackets and quotes (each
        // scan may read to the end).
        let opens = bytes.indices.lazy.filter { [UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\"")].contains(bytes[$0]) }
        for start in opens.prefix(16) {
            if bytes.containerEnd(at: start) != bytes.containerEndByBytes(at: start) {
                Oracle.fail(name, "containerEnd(at: \(start)) differs from the byte-by-byte reference", input: bytes)
            }
            if bytes.stringEnd(at: start) != bytes.stringEndByBytes(at: start) {
                Oracle.fail(name, "stringEnd(at: \(start)) differs from the byte-by-byte reference", input: bytes)
            }
        }
        uuidText(bytes)
        var ours: Document?
        var failure: DiagnosticError?
        do {
            ours = try JSONReader.read(bytes, file: "in.json", limits: Oracle.limits, keepSourceMap: true)
        } catch {
            failure = error
            Oracle.checkLocations(name, error, in: bytes)
        }
        tape(ours?.value, failure, bytes)
        // Foundation has no depth or size limit of ours: inputs over our limits are ours to refuse.
        if let failure, failure.diagnostics.contains(where: { $0.code == .limitExceeded }) { return }
        let theirs = foundation(bytes)

        switch (ours, theirs) {
        case (nil, nil):
            return
        case (let doc?, nil):
            if acceptedOnlyByUs(bytes) { break }
            Oracle.fail(name, "RuleKit accepts what JSONSerialization rejects: \(JSONWriter.string(doc.value).prefix(200))", input: bytes)
        case (nil, .some):
            if rejectedOnlyByUs(bytes, failure) { return }
            Oracle.fail(name, "RuleKit rejects what JSONSerialization accepts: \(failure?.description ?? "")", input: bytes)
        case (let doc?, let object?):
            if let diff = difference(doc.value, object, path: "") {
                Oracle.fail(name, "values differ at \(diff)", input: bytes)
            }
        }
        guard let doc = ours else { return }
        prefixed(bytes)
        Oracle.checkLocations(name, doc.sourceMap, in: bytes)
        roundTrip(doc.value, bytes)
        keptText(doc.value, bytes)
    }

    /// The id reader against Foundation's, on the input's first 36 bytes and on a canonical UUID text with
    /// the input's byte pairs (offset, byte) written over it (texts near the canonical form): where ours
    /// reads a UUID, Foundation reads the same.
    static func uuidText(_ input: [UInt8]) {
        var near = Array("358b3f29-7AFE-4200-8973-e880557cd851".utf8)
        var i = 0
        while i + 1 < input.count && i < 16 {
            near[Int(input[i]) % near.count] = input[i + 1]
            i += 2
        }
        for bytes in [Array(input.prefix(36)), near] {
            let text = String(decoding: bytes, as: UTF8.self)
            if let ours = EventID.canonical(text), ours != UUID(uuidString: text) {
                Oracle.fail(name, "EventID.canonical reads \(text.debugDescription) unlike UUID(uuidString:)", input: input)
            }
        }
    }

    /// Reading a top-level member into a tape changes nothing: the same error, or the same value with the
    /// member left out and a tape that stands for exactly that member (its text too).
    static func tape(_ v: Value?, _ failure: DiagnosticError?, _ input: [UInt8]) {
        var keys = ["data"]
        if case .object(let o)? = v, !o.isEmpty { keys += [o.key(at: 0), o.key(at: o.count - 1)] }
        for key in keys {
            let r: (value: Value, tape: JSONTape?, memberText: [UInt8]?)
            do {
                r = try JSONReader.read(input[...], file: "in.json", limits: Oracle.limits, tapeOf: key)
            } catch {
                if failure?.description != error.description {
                    Oracle.fail(name, "reading with a tape fails otherwise: \(error) vs \(failure?.description ?? "success")", input: input)
                }
                continue
            }
            guard let v else { Oracle.fail(name, "reading with a tape succeeds where reading fails", input: input) }
            guard case .object(var o) = v else {
                if r.tape != nil || !identical(r.value, v) { Oracle.fail(name, "a tape read changed a non-object", input: input) }
                return
            }
            guard let tape = r.tape else {
                if !identical(r.value, .object(o)) { Oracle.fail(name, "an untaken tape changed the value read", input: input) }
                continue
            }
            guard let member = o[key], identical(.object(tape.object()), member) else {
                Oracle.fail(name, "the tape of '\(key)' is not its value", input: input)
            }
            guard let back = try? JSONReader.read(Array(tape.text), limits: Oracle.limits).value, identical(back, member) else {
                Oracle.fail(name, "the tape's text of '\(key)' does not read back as its value", input: input)
            }
            chunked(input, key, member)
            o[key] = nil
            if !identical(r.value, .object(o)) { Oracle.fail(name, "reading with a tape changed the rest of the value", input: input) }
            written(tape, patch: o, input)
        }
    }

    /// The value read from the start of a longer text (`readPrefix`: how a service reads the events of an
    /// array body in place) is the value read alone, with the same tape and kept text, and ends where the
    /// text read alone ended.
    static func prefixed(_ input: [UInt8]) {
        guard let alone = try? JSONReader.read(input[...], file: "in.json", limits: Oracle.limits, tapeOf: "data") else { return }
        let longer = input + Array(#",{"next":1}]"#.utf8)
        var interner: StringInterner? = nil
        var chunk: TapeNodeChunk? = TapeNodeChunk(capacity: 24)
        let read = try? JSONReader.readPrefix(
            longer[...], file: "in.json", limits: Oracle.limits, lineOffset: 0, capturing: "data", interner: &interner, nodeChunk: &chunk)
        guard let r = read else { Oracle.fail(name, "readPrefix refuses a text that reads alone", input: input) }
        if r.end != input.count { Oracle.fail(name, "readPrefix ends at \(r.end), not at \(input.count)", input: input) }
        if !identical(r.value, alone.value) { Oracle.fail(name, "readPrefix reads another value", input: input) }
        if r.memberText != alone.memberText { Oracle.fail(name, "readPrefix keeps another text of 'data'", input: input) }
        switch (r.tape, alone.tape) {
        case (nil, nil): break
        case (let a?, let b?):
            if !identical(.object(a.materialize()), .object(b.materialize())) || Array(a.text) != Array(b.text) {
                Oracle.fail(name, "readPrefix's tape of 'data' differs", input: input)
            }
        default: Oracle.fail(name, "readPrefix takes a tape where reading alone does not, or the reverse", input: input)
        }
    }

    /// The tape of `key` with its nodes in shared chunks, as a JSON-lines block reads them: three times
    /// over into one small chunk (so later tapes find it full, or fill it half-way and move), each the
    /// member's value, and the first still so after the others were made.
    static func chunked(_ input: [UInt8], _ key: String, _ member: Value) {
        var interner: StringInterner? = nil
        var chunk: TapeNodeChunk? = TapeNodeChunk(capacity: 24)
        var tapes: [JSONTape] = []
        for _ in 0..<3 {
            let r = try? JSONReader.read(
                input[...], file: "in.json", limits: Oracle.limits, lineOffset: 0, capturing: key, asTape: true,
                interner: &interner, nodeChunk: &chunk)
            guard let tape = r?.tape, identical(.object(tape.materialize()), member) else {
                Oracle.fail(name, "the tape of '\(key)' in a shared chunk is not its value", input: input)
            }
            tapes.append(tape)
        }
        if !identical(.object(tapes[0].materialize()), member) {
            Oracle.fail(name, "a tape in a shared chunk changed when the next was read", input: input)
        }
    }

    /// A tape written compact is `JSONWriter`'s text of its object, and a merge written from the tape
    /// (here with the rest of the document, and the tape's own object, as patches) reads back as
    /// `EventDataMerge.merge` (and is `JSONWriter`'s text of it when the tape's text was compact), with
    /// `changesData()` its verdict and `mayChangeMember` that of step 2 alone.
    static func written(_ tape: JSONTape, patch: ValueObject, _ input: [UInt8]) {
        var out: [UInt8] = []
        tape.writeCompact(to: &out)
        var expected: [UInt8] = []
        JSONWriter.write(tape.object(), to: &expected)
        if out != expected { Oracle.fail(name, "the tape written compact is not the writer's text", input: input) }
        let compact = Array(tape.text) == out
        // A member the overlay says the merge leaves alone (its walk of the nodes, `isClean`) is the
        // reference's: step 2 alone (an empty patch) keeps it as it is.
        let cleaned = EventDataMerge.merge(to: tape.object(), from: [:], overwrite: false)
        let alone = DataOverlay(base: tape, patch: [:], overwrite: false)
        for i in 0..<tape.object().count {
            let key = tape.object().key(at: i)
            if !alone.mayChangeMember(key) && cleaned[key] != tape.object()[key] {
                Oracle.fail(name, "mayChangeMember says member \(key) stays, and the merge changes it", input: input)
            }
        }
        // The reader's clean flag (invariant 9) only where the walk finds the object clean.
        let flagged = tape.withUnsafeView { view in
            (0..<view.nodes.count).allSatisfy { i in
                view.nodes[i].kind != .object || view.nodes[i].flags & JSONTape.Node.cleanFlag == 0 || view.cleanByWalk(i)
            }
        }
        if !flagged { Oracle.fail(name, "an object the reader flags clean holds a null or a [*] key", input: input) }
        for p in [patch, tape.object()] {
            for overwrite in [false, true] {
                let merged = EventDataMerge.merge(to: tape.object(), from: p, overwrite: overwrite)
                let overlay = DataOverlay(base: tape, patch: p, overwrite: overwrite)
                out.removeAll(keepingCapacity: true)
                overlay.write(to: &out)
                expected.removeAll(keepingCapacity: true)
                JSONWriter.write(merged, to: &expected)
                // What the merge leaves is copied as written: the bytes are the reference's when the tape's
                // text is compact as the writer writes it, and read back as the reference's always.
                if compact && out != expected {
                    Oracle.fail(name, "a merge written from the tape is not the reference's (overwrite \(overwrite))", input: input)
                }
                guard let back = try? JSONReader.read(out).value, JSONWriter.string(back) == JSONWriter.string(.object(merged)),
                    !out.contains(0x0A)
                else {
                    Oracle.fail(name, "a merge written from the tape does not read back as the reference's", input: input)
                }
                if overlay.changesData() != (merged != tape.object()) {
                    Oracle.fail(name, "the overlay's changesData is not the reference's (overwrite \(overwrite))", input: input)
                }
            }
        }
    }

    /// The text the reader keeps of a top-level member (the writer copies it as the member's JSON) reads
    /// back as exactly that member, and keeping it changes nothing of the value read.
    static func keptText(_ v: Value, _ input: [UInt8]) {
        guard case .object(let o) = v, !o.isEmpty else { return }
        for i in [0, o.count - 1] {
            let key = o.key(at: i)
            let kept: (Value, [UInt8]?)
            do {
                kept = try JSONReader.read(input[...], file: "in.json", limits: Oracle.limits, keepingTextOf: key)
            } catch {
                Oracle.fail(name, "reading with a kept member fails where reading without succeeds: \(error)", input: input)
            }
            if !identical(kept.0, v) { Oracle.fail(name, "keeping a member's text changed the value read", input: input) }
            guard let text = kept.1 else { continue }
            guard let back = try? JSONReader.read(text, limits: Oracle.limits).value, identical(back, o.value(at: i)) else {
                Oracle.fail(name, "the kept text of '\(key)' does not read back as its value", input: input)
            }
        }
    }

    /// `read(write(v)) == v`, pretty and compact, with every double kept exactly.
    static func roundTrip(_ v: Value, _ input: [UInt8]) {
        for options in [JSONWriter.Options.compact, .pretty] {
            let text = JSONWriter.string(v, options: options)
            let back: Value
            do {
                back = try JSONReader.read(Array(text.utf8), limits: Oracle.limits).value
            } catch {
                Oracle.fail(name, "the writer's text does not read back: \(error)\n\(text.prefix(300))", input: input)
            }
            if !identical(back, jsonForm(v)) {
                Oracle.fail(name, "round trip changed the value:\n\(text.prefix(300))", input: input)
            }
        }
    }

    /// What JSON can say of `v`: NaN and infinities are written as `null` (the writer's documented rule).
    static func jsonForm(_ v: Value) -> Value {
        switch v {
        case .double(let d) where !d.isFinite: return .null
        case .array(let a): return .array(a.map(jsonForm))
        case .object(let o): return .object(ValueObject(o.map { ($0.key, jsonForm($0.value)) }))
        default: return v
        }
    }

    static func foundation(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
    }

    /// Texts JSONSerialization refuses that RFC 8259 allows, which RuleKit reads (documented differences).
    static func acceptedOnlyByUs(_ bytes: [UInt8]) -> Bool {
        false
    }

    /// Texts JSONSerialization takes that RFC 8259 (and RuleKit) refuses.
    static func rejectedOnlyByUs(_ bytes: [UInt8], _ error: DiagnosticError?) -> Bool {
        // corelibs Foundation stops reading at a NUL byte, as if the text ended there.
        if bytes.contains(0) { return true }
        // Foundation takes a trailing comma in arrays and objects; RFC 8259 has none.
        if let d = error?.diagnostics.first, d.message.hasPrefix("trailing comma") { return true }
        // Foundation skips a leading UTF-8 byte order mark; RFC 8259 §8.1 says a text must not have one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]), let d = error?.diagnostics.first, d.message.contains("byte order mark") {
            return true
        }
        return false
    }

    /// Where `ours` and Foundation's `theirs` differ (objects as maps with the last duplicate winning,
    /// numbers by value), or nil.
    static func difference(_ ours: Value, _ theirs: Any, path: String) -> String? {
        switch ours {
        case .null:
            return theirs is NSNull ? nil : "\(path): null vs \(theirs)"
        case .bool(let b):
            guard let n = theirs as? NSNumber, isBool(n) else { return "\(path): \(b) vs \(theirs)" }
            return n.boolValue == b ? nil : "\(path): \(b) vs \(n)"
        case .int(let i):
            guard let n = theirs as? NSNumber, !isBool(n) else { return "\(path): \(i) vs \(theirs)" }
            return sameNumber(Double(i), exactInt: i, n) ? nil : "\(path): \(i) vs \(n)"
        case .double(let d):
            guard let n = theirs as? NSNumber, !isBool(n) else { return "\(path): \(d) vs \(theirs)" }
            return sameNumber(d, exactInt: nil, n) ? nil : "\(path): \(d) vs \(n)"
        case .string(let s):
            guard let t = theirs as? String else { return "\(path): string vs \(type(of: theirs))" }
            return s == t || withoutBOMs(s) == withoutBOMs(t) ? nil : "\(path): \(s.debugDescription) vs \(t.debugDescription)"
        case .array(let a):
            guard let t = theirs as? [Any] else { return "\(path): array vs \(type(of: theirs))" }
            guard a.count == t.count else { return "\(path): \(a.count) vs \(t.count) elements" }
            for (i, (x, y)) in zip(a, t).enumerated() {
                if let d = difference(x, y, path: "\(path)/\(i)") { return d }
            }
            return nil
        case .object(let o):
            guard let t = theirs as? [String: Any] else { return "\(path): object vs \(type(of: theirs))" }
            // Keys that differ only by a leading U+FEFF are one key once Foundation bridges them: such
            // objects cannot be compared member for member.
            if Set(o.keys.map(withoutBOMs)).count != o.count { return nil }
            guard o.count == t.count else { return "\(path): \(o.count) vs \(t.count) members" }
            for (k, v) in o {
                guard let w = t[k] ?? t.first(where: { withoutBOMs($0.key) == withoutBOMs(k) })?.value else {
                    return "\(path): key \(k.debugDescription) missing in Foundation's"
                }
                if let d = difference(v, w, path: "\(path)/\(k)") { return d }
            }
            return nil
        }
    }

    /// A string without its U+FEFF characters, to compare with what corelibs Foundation hands back. It
    /// builds a string in pieces (one after each escape) and bridges each through `NSString`, which takes
    /// a U+FEFF at the start of a piece for a byte order mark and drops it: `{"\u{FEFF}a": 1}` comes back
    /// with the key "a", and `"\\n\u{FEFF}"` as a lone newline. RFC 8259 strings keep every character;
    /// RuleKit's reader does (a documented difference).
    static func withoutBOMs(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.filter { $0 != "\u{FEFF}" }))
    }

    static func isBool(_ n: NSNumber) -> Bool {
        // corelibs Foundation stores booleans as char-typed numbers.
        let t = String(cString: n.objCType)
        return t == "B" || (t == "c" && (n.int8Value == 0 || n.int8Value == 1))
    }

    static func sameNumber(_ d: Double, exactInt: Int64?, _ n: NSNumber) -> Bool {
        let type = String(cString: n.objCType)
        if let i = exactInt, type != "d", type != "f" {
            if type == "Q" { return i >= 0 && UInt64(i) == n.uint64Value }
            return i == n.int64Value
        }
        let theirs = n.doubleValue
        if d == theirs { return true }
        // Foundation keeps integers past 64 bits as NSDecimalNumber: 38 significant digits, and a
        // conversion to Double that is not correctly rounded. Its decimal text, read correctly rounded,
        // is within one unit in the last place of RuleKit's value (the digits it drops are far below it).
        if n is NSDecimalNumber, d.isFinite, let exact = Double(n.stringValue), exact.isFinite {
            return abs(d - exact) <= max(d.magnitude, exact.magnitude).ulp
        }
        return false
    }

    /// Structural equality that tells `.int` from `.double` and compares doubles bit for bit but for
    /// the sign of zero written as `-0.0`.
    static func identical(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            return zip(x, y).allSatisfy { $0.key == $1.key && identical($0.value, $1.value) }
        default: return false
        }
    }
}
