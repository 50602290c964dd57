// Template oracle: `Template.parse` finds `{% %}` tokens with a byte search over a buffer. A plain
// reference written over `String.UTF8View` with no buffers must cut the same text into the same
// segments (and agree on an unclosed tag); rendering the two against an event built from the
// template's own keys gives the same text.
import Foundation
import RuleKitCore

@testable import RuleKitRules

/// The template oracle: `Template.parse` cuts and renders as a plain reference parser does.
public enum TemplateOracle {
    static let name = "fuzz-template"

    /// A segment as the reference sees it: text, or a tag's raw content.
    enum Piece: Equatable {
        case text(String)
        case tag(String)
    }

    /// The reference: the first "{%" from the cursor, then the first "%}" after it; text between tags
    /// kept; an opening without a closing makes the whole template unclosed (nil).
    static func referencePieces(_ text: String) -> [Piece]? {
        let bytes = Array(text.utf8)
        func find(_ a: UInt8, _ b: UInt8, from: Int) -> Int? {
            var i = from
            while i + 1 < bytes.count {
                if bytes[i] == a && bytes[i + 1] == b { return i }
                i += 1
            }
            return nil
        }
        func string(_ r: Range<Int>) -> String { String(decoding: bytes[r], as: UTF8.self) }
        var pieces: [Piece] = []
        var pos = 0
        while let open = find(0x7B, 0x25, from: pos) {
            if open > pos { pieces.append(.text(string(pos..<open))) }
            guard let close = find(0x25, 0x7D, from: open + 2) else { return nil }
            pieces.append(.tag(string((open + 2)..<close)))
            pos = close + 2
        }
        if pos < bytes.count { pieces.append(.text(string(pos..<bytes.count))) }
        return pieces
    }

    /// Checks one input; traps (a finding for libFuzzer) on any disagreement.
    public static func check(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let template = Template.parse(text)
        let reference = referencePieces(text)
        guard let reference else {
            if !template.unclosed { Oracle.fail(name, "the reference finds an unclosed tag, the parser does not", input: bytes) }
            return
        }
        if template.unclosed { Oracle.fail(name, "the parser finds an unclosed tag, the reference does not", input: bytes) }
        // A tag's raw content: the key as written, or `name(inner)`.
        let parsed: [Piece] = template.segments.map { s in
            switch s {
            case .text(let t): return .text(t)
            case .token(let tok): return .tag(tok.isEmpty ? "" : tok.rawKey)
            }
        }
        let expected: [Piece] = reference.map { p in
            guard case .tag(let content) = p else { return p }
            let tok = Template.token(content) { (KeyRef.parse($0), nil) }
            return .tag(tok.isEmpty ? "" : tok.rawKey)
        }
        if parsed != expected {
            Oracle.fail(name, "segments differ: \(parsed) vs \(expected)", input: bytes)
        }
        // Render against an event holding a value at every key the template reads.
        var data = ValueObject()
        var random = SplitMix(seed: fnv(bytes))
        for case .token(let tok) in template.segments where !tok.isEmpty && !tok.rawKey.hasPrefix("~") {
            EventMaker.put(
                EventMaker.pick([.string("v"), .int(7), .double(2.5), .bool(true)], &random),
                at: tok.rawKey, in: &data, &random)
        }
        let event = Event(name: "e", type: "t", source: "s", data: data)
        let runtime = StaticRulesRuntime(clock: { Date(timeIntervalSince1970: 1_700_000_000) })
        var r1 = Resolver(event: event, runtime: runtime)
        let rendered = Evaluator.render(template, &r1)
        var rebuilt = Template(
            segments: reference.map { p in
                switch p {
                case .text(let t): return .text(t)
                case .tag(let c): return .token(Template.token(c) { (KeyRef.parse($0), nil) })
                }
            }, unclosed: false)
        rebuilt.unclosed = false
        var r2 = Resolver(event: event, runtime: runtime)
        let expectedText = Evaluator.render(rebuilt, &r2)
        // `~cachebust` is random per read.
        if rendered != expectedText && !text.lowercased().contains("cachebust") {
            Oracle.fail(name, "rendered \(rendered.debugDescription) vs \(expectedText.debugDescription)", input: bytes)
        }
    }
}
