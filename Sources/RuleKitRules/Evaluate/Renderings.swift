internal import Foundation
internal import RuleKitCore

/// A resolver's memory, across passes, of how each planned consequence last rendered.
///
/// A consequence renders the same way event after event: a history rule records the same content each
/// time, and a consequence without tokens always renders its literal. When every token of a consequence
/// renders to the same text as last time, the consequence made then is handed out again. So is the data
/// (and JSON text) of the rules-consequence event made for it, so such an event costs neither a tree nor
/// a writing of its own. Token texts are compared byte for byte, not with `==`: `==` takes canonically
/// equivalent strings as equal, and they are written differently. `Evaluator.renderAfresh` is the plain
/// rendering that tests compare this against.
struct Renderings {
    /// A class, so that looking one up costs one retain, not one per field; immutable, so that copies of
    /// a resolver never share anything mutable.
    private final class Entry: Sendable {
        let serial: Int
        let tokens: [String]
        let consequence: Consequence
        let event: (data: ValueObject, text: [UInt8])?

        init(serial: Int, tokens: [String], consequence: Consequence, event: (data: ValueObject, text: [UInt8])? = nil) {
            self.serial = serial
            self.tokens = tokens
            self.consequence = consequence
            self.event = event
        }
    }

    /// Direct-mapped by `PlannedConsequence.serial` (which no other planned consequence of the process
    /// shares): two consequences whose serials meet in one slot take turns in it. Consecutive serials
    /// (one rule set's consequences) never meet below `slots` of them.
    private var entries: [Entry?] = []
    static let slots = 4096

    /// The consequence last made for `serial`, if its tokens rendered to exactly `tokens`.
    func kept(_ serial: Int, tokens: [String]) -> Consequence? {
        guard !entries.isEmpty, let e = entries[Self.slot(serial)], e.serial == serial, e.tokens.count == tokens.count
        else { return nil }
        for (a, b) in zip(e.tokens, tokens) where !Self.sameText(a, b) { return nil }
        return e.consequence
    }

    /// Remembers the rendering of `serial`.
    mutating func keep(_ serial: Int, tokens: [String], consequence: Consequence) {
        if entries.isEmpty { entries = Array(repeating: nil, count: Self.slots) }
        entries[Self.slot(serial)] = Entry(serial: serial, tokens: tokens, consequence: consequence)
    }

    /// The data of a rules-consequence event carrying `c` (`{"triggeredconsequence": c}`) and its compact
    /// JSON text, shared when `c` is the consequence remembered for `serial` (the very same storage).
    mutating func eventData(_ c: Consequence, serial: Int) -> (data: ValueObject, text: [UInt8]) {
        let e = entries.isEmpty ? nil : entries[Self.slot(serial)]
        let remembered = e.map { $0.serial == serial && Self.isRemembered(c, $0.consequence) } ?? false
        if remembered, let made = e?.event { return made }
        let data: ValueObject = ["triggeredconsequence": c.value]
        var text: [UInt8] = []
        JSONWriter.write(data, to: &text)
        if remembered, let e {
            entries[Self.slot(serial)] = Entry(serial: serial, tokens: e.tokens, consequence: e.consequence, event: (data, text))
        }
        return (data, text)
    }

    private static func slot(_ serial: Int) -> Int { serial & (slots - 1) }

    /// Whether `c` is a copy of the remembered `kept`: the detail's very storage, and the same id and type.
    private static func isRemembered(_ c: Consequence, _ kept: Consequence) -> Bool {
        c.detail.sharesStorage(with: kept.detail) && sameText(c.id, kept.id) && sameText(c.type, kept.type)
    }

    /// Byte equality of two strings (compared in place: a walk of the `utf8` views costs more than the
    /// whole event).
    static func sameText(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var x = a
        var y = b
        return x.withUTF8 { p in y.withUTF8 { q in p.count == 0 || memcmp(p.baseAddress!, q.baseAddress!, p.count) == 0 } }
    }
}
