import Foundation
import Testing

@testable import RuleKitCore

@Suite struct JSONWriterTests {
    @Test func compactOutputIsDeterministicAndKeepsOrder() {
        let v: Value = ["z": 1, "a": [true, nil, 2.5, "q\"\n\u{1}"], "m": [:]]
        #expect(JSONWriter.string(v) == #"{"z":1,"a":[true,null,2.5,"q\"\n\u0001"],"m":{}}"#)
        #expect(JSONWriter.string(v, options: .init(sortKeys: true)) == #"{"a":[true,null,2.5,"q\"\n\u0001"],"m":{},"z":1}"#)
    }

    @Test func prettyOutput() {
        let v: Value = ["a": [1, 2], "b": [:]]
        #expect(JSONWriter.string(v, options: .pretty) == "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}")
    }

    @Test(arguments: [0.1, 22.0, -0.0, 1e20, 1.7976931348623157e308, Double.leastNonzeroMagnitude, 123456789.125])
    func doublesRoundTripAndStayDoubles(_ d: Double) throws {
        let text = JSONWriter.string(.double(d))
        let back = try JSONReader.value(text)
        #expect(back == .double(d), "\(text)")
    }

    @Test func nonFiniteDoublesBecomeNull() {
        #expect(JSONWriter.string([.double(.nan), .double(.infinity)]) == "[null,null]")
    }

    @Test func readWriteRoundTripIsLossless() throws {
        let text = #"{"id":"r","n":[1,1.0,-2.5e-7,9223372036854775807],"s":"é😀\\/","o":{"":null}}"#
        let v = try JSONReader.value(text)
        #expect(try JSONReader.value(JSONWriter.string(v)) == v)
        #expect(try JSONReader.value(JSONWriter.string(v, options: .pretty)) == v)
    }
}
