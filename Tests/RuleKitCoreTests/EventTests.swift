import Foundation
import Testing

@testable import RuleKitCore

@Suite struct EventTests {
    @Test func idsAreVersion4UUIDsAndDistinct() {
        var seen = Set<UUID>()
        for _ in 0..<100_000 {
            let id = Event(name: "e", type: "t", source: "s").id
            let u = id.uuid
            #expect(u.6 >> 4 == 4)
            #expect(u.8 >> 6 == 0b10)
            seen.insert(id)
        }
        #expect(seen.count == 100_000)
        // The text form is Foundation's.
        let id = EventID.next()
        #expect(UUID(uuidString: id.uuidString) == id)
    }

    @Test func dataTextIsKeptUntilTheDataChanges() {
        var e = Event(name: "e", type: "t", source: "s", data: ["a": 1])
        e.setDataText(Array(#"{"a": 1}"#.utf8))
        #expect(e.dataText != nil)
        var copy = e
        copy.name = "renamed"
        copy.number = 3
        #expect(copy.dataText == e.dataText)
        copy.data?["b"] = 2
        #expect(copy.dataText == nil)
        #expect(e.dataText != nil)
        #expect(e.copy(withData: ["a": 1]).dataText == nil)
        // No data, no text.
        var empty = Event(name: "e", type: "t", source: "s")
        empty.setDataText(Array("{}".utf8))
        #expect(empty.dataText == nil)
    }

    @Test func dataTextPlaysNoPartInEquality() {
        var a = Event(id: UUID(), name: "e", type: "t", source: "s", data: ["a": 1], timestamp: Date(timeIntervalSince1970: 0))
        let b = a
        a.setDataText(Array(#"{"a":1}"#.utf8))
        #expect(a == b)
    }

    /// The form of an event's data as `withDataView` lends it.
    static func form(_ e: Event) -> String {
        e.withDataView { d in
            switch d {
            case .none: "none"
            case .tree(_, let text): text == nil ? "tree" : "tree+text"
            case .tape: "tape"
            case .overlay: "overlay"
            }
        }
    }

    @Test func theDataIsKeptInOneFormAtATime() throws {
        let line = Array(#"{"data":{"a":{"b":1},"s":"x"}}"#.utf8)
        let tape = try #require(try JSONReader.read(line[...], file: "t", tapeOf: "data").tape)
        var e = Event(name: "e", type: "t", source: "s")
        #expect(Self.form(e) == "none" && e.data == nil && e.document == nil && e.overlay == nil)
        // Merging into no data leaves no data.
        #expect(Self.form(e.merging(["z": 1], overwrite: true)) == "none")
        e.setDocument(tape)
        #expect(Self.form(e) == "tape" && e.document === tape && e.overlay == nil)
        // Reading `data` makes the tree once and keeps the tape as the form.
        #expect(e.data == ["a": ["b": 1], "s": "x"])
        #expect(Self.form(e) == "tape")
        let merged = e.merging(["s": "y"], overwrite: true)
        #expect(Self.form(merged) == "overlay" && merged.document == nil && merged.overlay?.base === tape)
        #expect(merged.data == ["a": ["b": 1], "s": "y"])
        #expect(merged.dataText == nil)
        // A preprocessor's answer takes the other event's form, whatever it is.
        #expect(Self.form(e.copy(withDataOf: merged)) == "overlay")
        // Any change makes a tree without text.
        var changed = merged
        changed.data?["t"] = true
        #expect(Self.form(changed) == "tree" && changed.overlay == nil)
        changed.setDataText(Array(#"{"t":true}"#.utf8))
        #expect(Self.form(changed) == "tree+text")
        changed.data = nil
        #expect(Self.form(changed) == "none")
        // Text is kept only beside a tree.
        changed.setDataText(Array("{}".utf8))
        #expect(Self.form(changed) == "none")
        // The original is untouched by its copies' changes.
        #expect(Self.form(e) == "tape" && e.data == ["a": ["b": 1], "s": "x"])
    }
}
