import Foundation
import RuleKitCore
import Testing

@testable import RuleKitYAML

/// The event log's splice (`YAMLEventLog.swift`) against its plain reference, a fresh read of the edited
/// text: random edits of a rules text, each spliced log equal to the recorded one, event for event.
@Suite struct YAMLEventLogTests {
    /// A rules text with what makes splicing hard: anchors and aliases, quotes over lines, block scalars,
    /// flow collections, comments between items, and keys after the list.
    static func text(rules n: Int) -> String {
        var s = "%YAML 1.1\n---\n# a header\nversion: 1\nshared:\n  c: &c\n    type: matcher\n"
        s += "    definition: {key: ~type, matcher: eq, values: [a]}\n"
        s += "rules:\n"
        for i in 0..<n {
            if i % 7 == 3 { s += "# rules \(i)..\n" }
            s += "- name: 'rule \(i): it''s'\n  enabled: true\n  condition:\n    type: group\n    definition:\n      logic: and\n"
            s += "      conditions:\n      - *c\n      - {type: matcher, definition: {key: \"xdm.a\\\"b\", matcher: gt, values: [\(i)]}}\n"
            if i % 3 == 0 { s += "  description: |\n    line one\n\n    line two\n" }
            if i % 4 == 1 { s += "  note: \"a quote that\n    goes on\"\n" }
            s += "  consequences:\n  - id: c\(i)\n    type: add\n    detail: {eventdata: {k: \(i)}}\n"
        }
        s += "dataElements:\n  one: {path: a.b, type: string}\n"
        return s
    }

    /// A generator of the same edits on every run.
    struct Edits {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, n)))
        }
    }

    static let pieces = [
        "7", "x", "\n", "'", "\"", "[", "]", "{", "}", ": ", "- ", "#", " &a ", " *c", "  ", "|\n", "---\n",
        "\n- name: z\n", "\n  extra: 1", "\t", "...\n", "é", ",", "? ", "\r", "\u{85}", "\u{2028}",
    ]

    /// The edited text of `text`: a piece put in, a few bytes taken out, or both.
    static func edit(_ text: [UInt8], _ g: inout Edits) -> [UInt8] {
        var t = text
        let at = g.next(t.count + 1)
        let cut = g.next(3) == 0 ? min(g.next(4), t.count - at) : 0
        let piece = g.next(4) == 0 ? [] : Array(pieces[g.next(pieces.count)].utf8)
        t.replaceSubrange(at..<(at + cut), with: piece)
        return t
    }

    /// What a log holds, as text that differs whenever two logs differ.
    static func dump(_ log: YAMLEventLog) -> [String] {
        var out = log.events.map { e in
            let v = String(decoding: log.bytes[e.value], as: UTF8.self)
            let tag = e.tag.map { String(decoding: log.bytes[$0], as: UTF8.self) } ?? "-"
            let anchor = e.anchor.map { String(decoding: log.bytes[$0], as: UTF8.self) } ?? "-"
            return "\(e.type.rawValue) \(e.mark.line):\(e.mark.column) \(e.plain) \(e.block) \(v) \(tag) \(anchor)"
        }
        out += log.items.map { "item \($0.range) \($0.line) \($0.offset)" }
        out.append("end \(log.listEnd) \(log.listEndOffset) \(log.listEndLine)")
        return out
    }

    @Test func aSplicedLogIsTheLogOfTheEditedText() throws {
        var g = Edits(state: 37)
        var spliced = 0
        var edits = 0
        for round in 0..<12 {
            var text = Array(Self.text(rules: 4 + round).utf8)
            var log = try #require(YAMLEventLog.record(text))
            #expect(log.itemCount == 4 + round)
            for _ in 0..<150 {
                let new = Self.edit(text, &g)
                edits += 1
                if let u = log.updated(to: new) {
                    spliced += 1
                    let fresh = try #require(YAMLEventLog.record(new), "a splice of a text libyaml refuses")
                    #expect(Self.dump(u) == Self.dump(fresh), "after the edit at round \(round)")
                    let a = YAMLReader.tape(u, file: "f.yaml")
                    let b = YAMLReader.tape(new, file: "f.yaml")
                    #expect(a.map { "\($0.tape.object()) \($0.warnings)" } == b.map { "\($0.tape.object()) \($0.warnings)" })
                    (text, log) = (new, u)
                } else if let fresh = YAMLEventLog.record(new) {
                    (text, log) = (new, fresh)
                }
                // A text no log holds is left behind: the next edit is made to the last one that was.
            }
        }
        // Most edits are inside one rule and are spliced; a splice path never taken would prove nothing.
        #expect(spliced * 3 > edits, "\(spliced) of \(edits) edits spliced")
    }

    @Test func textsALogDoesNotHold() {
        #expect(YAMLEventLog.record(Array("rules: [{a: 1}]\n".utf8)) == nil)
        #expect(YAMLEventLog.record(Array("x: 1\n".utf8)) == nil)
        #expect(YAMLEventLog.record(Array("rules:\n- a: 'open\n".utf8)) == nil)
        #expect(YAMLEventLog.record(Array("rules:\n- a: 1".utf8)) == nil)  // no final line break
        #expect(YAMLEventLog.record(Array("rules:\n- a: 1\n".utf8))?.itemCount == 1)
        // Events are kept whole: past a bound, none are (the text is read whole each time).
        let many = Array(("rules:\n" + String(repeating: "- a: 1\n", count: 10)).utf8)
        #expect(YAMLEventLog.pull(many, maxEvents: 30) == nil)
        #expect(YAMLEventLog.pull(many, maxEvents: 60)?.0.count == 49)
    }

    @Test func anEditAcrossRulesOrAfterThemIsReadAnew() throws {
        let text = Array("version: 1\nrules:\n- a: 1\n- a: 2\nafter: 1\n".utf8)
        let log = try #require(YAMLEventLog.record(text))
        #expect(log.updated(to: Array("version: 1\nrules:\n- a: 1\n- a: 2\nafter: 2\n".utf8)) == nil)
        #expect(log.updated(to: Array("version: 1\nrules:\n- a: 13\n- a: 23\nafter: 1\n".utf8)) == nil)
        #expect(log.updated(to: Array("version: 1\nrules:\n- a: 1\n- a: 1\n- a: 2\nafter: 1\n".utf8)) == nil)
        let one = try #require(log.updated(to: Array("version: 1\nrules:\n- a: 17\n- a: 2\nafter: 1\n".utf8)))
        #expect(Self.dump(one) == Self.dump(try #require(YAMLEventLog.record(one.text))))
    }

    @Test func anEditAboveTheRulesReadsThatTextAgain() throws {
        let text = Array("version: 1\nshared: &s {a: 1}\nrules:\n  - a: *s\n  - b: 2\n".utf8)
        let log = try #require(YAMLEventLog.record(text))
        for new in [
            "version: 1\nshared: &s {a: 12}\nrules:\n  - a: *s\n  - b: 2\n",
            "version: 1\n\nshared: &s\n  a: 1\nrules:\n  - a: *s\n  - b: 2\n",
        ] {
            let u = try #require(log.updated(to: Array(new.utf8)))
            #expect(Self.dump(u) == Self.dump(try #require(YAMLEventLog.record(u.text))))
        }
        // A tag directive changes how the rules' tags read; a header that no longer ends in the list is refused.
        let tagged = Array("%TAG !e! tag:e,2026:\n---\nrules:\n- !e!a 1\n".utf8)
        #expect(try #require(YAMLEventLog.record(tagged)).updated(to: Array("%TAG !e! tag:f,2026:\n---\nrules:\n- !e!a 1\n".utf8)) == nil)
        #expect(log.updated(to: Array("version: 1\nshared: &s {a: 1}\nrules: []\nmore:\n  - a: *s\n  - b: 2\n".utf8)) == nil)
    }

    @Test func anEditThatJoinsTheNextLineToARuleIsReadAnew() throws {
        // Found by fuzz-yaml: the line break before the keys after the list taken out, the block scalar
        // went on over them.
        let text = Array("rules:\n- a: x\n- b: |\n    kept\n\nafter: 1\n".utf8)
        let log = try #require(YAMLEventLog.record(text))
        #expect(log.updated(to: Array("rules:\n- a: x\n- b: |\n    kep\tafter: 1\n".utf8)) == nil)
        #expect(log.updated(to: Array("rules:\n- a: x- b: |\n    kept\n\nafter: 1\n".utf8)) == nil)
    }

    @Test func aDocumentMarkerInARuleIsReadAnew() throws {
        // Found by fuzz-yaml: `...` ends the rule's own text as a document, and the whole text's too.
        let text = Array("rules:\n- a: x\n- b: y\nafter: 1\n".utf8)
        let log = try #require(YAMLEventLog.record(text))
        #expect(log.updated(to: Array("rules:\n- a: x\n...\n- b: y\nafter: 1\n".utf8)) == nil)
        #expect(log.updated(to: Array("rules:\n- a: x\n--- \n- b: y\nafter: 1\n".utf8)) == nil)
    }
}
