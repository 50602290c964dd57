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
}
