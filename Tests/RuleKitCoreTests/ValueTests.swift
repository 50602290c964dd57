import Foundation
import Testing

@testable import RuleKitCore

@Suite struct ValueTests {
    @Test func intAndDoubleAreDistinctButNumericallyComparable() {
        #expect(Value.int(3) != Value.double(3))
        #expect(Value.int(3).numericallyEquals(.double(3)))
        #expect(!Value.string("3").numericallyEquals(.int(3)))
    }

    @Test func objectEqualityIgnoresOrderAndHashAgrees() {
        let a: Value = ["x": 1, "y": 2]
        let b: Value = ["y": 2, "x": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a.objectValue?.keys == ["x", "y"])
    }

    @Test func largeObjectsIndexAndStayOrdered() {
        var o = ValueObject()
        for i in 0..<100 { o["k\(i)"] = .int(Int64(i)) }
        #expect(o["k73"] == .int(73))
        o["k10"] = nil
        #expect(o["k10"] == nil)
        #expect(o["k11"] == .int(11))
        #expect(o.count == 99)
        #expect(o.keys.first == "k0")
        o["k5"] = "five"
        #expect(o.keys[5] == "k5")
    }

    @Test func foundationBridgeRoundTrips() throws {
        let json = #"{"a":1,"b":2.5,"c":true,"d":null,"e":["x"],"f":{"g":false}}"#
        let fromFoundation = try Value(foundation: try JSONSerialization.jsonObject(with: Data(json.utf8)))
        #expect(fromFoundation == (try JSONReader.value(json)))
        let back = try Value(foundation: fromFoundation.foundationObject)
        #expect(back == fromFoundation)
        #expect(fromFoundation.foundationDictionary?["a"] as? Int64 == 1)
    }

    @Test func foundationValuesWithoutJSONFormAreReportedWithTheirPath() {
        do {
            _ = try Value(foundation: ["a": [Date()]] as [String: Any])
            Issue.record("accepted a Date")
        } catch {
            #expect(error.diagnostics[0].pointer == "/a/0")
        }
    }

    @Test func dataRoundTrip() throws {
        let v: Value = ["n": 22.0, "i": 22]
        #expect(try Value(jsonData: v.jsonData()) == v)
    }
}

@Suite struct ValueLayoutTests {
    @Test func aValueStaysThreeWordsAndObjectsKnowWhetherTheyHaveDottedKeys() {
        #expect(MemoryLayout<Value>.stride == 24)
        var o = ValueObject()
        o["a"] = 1
        #expect(!o.mayHaveDottedKeys)
        o["b.c"] = 2
        #expect(o.mayHaveDottedKeys)
        #expect(ValueObject(members: [.init(key: "x.y", value: .null)]).mayHaveDottedKeys)
        #expect(!ValueObject(members: [.init(key: "xy", value: .null)]).mayHaveDottedKeys)
    }
}
