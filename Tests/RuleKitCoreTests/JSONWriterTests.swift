import Foundation
import RuleKitTestSupport
import Testing

@testable import RuleKitCore

@Suite struct JSONWriterTests {
    /// Ids are written as Foundation's `uuidString` spells them (the output of `rulekit run` and the keys
    /// of history records rely on it).
    @Test func idsAreWrittenAsTheirUUIDString() {
        for id in (0..<200).map({ _ in EventID.next() }) + [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))] {
            var out: [UInt8] = [0x7B]
            JSONWriter.writeUUID(id, to: &out)
            #expect(out == [0x7B] + Array(id.uuidString.utf8))
            #expect(id.text == id.uuidString)
        }
    }

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

/// The byte writer against the plain reference writer, and the exact text the reader keeps.
@Suite struct JSONWriterAgreementTests {
    /// The string writer scans eight bytes at a time: every byte that needs an escape (and a non-ASCII
    /// one, which does not), alone and in pairs, at every offset of strings of up to 26 bytes, so each
    /// position within a word and the bytes left after the last whole word are all covered.
    @Test func stringsEscapeAsTheReferenceAtEveryOffset() {
        let specials = ["\"", "\\", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{01}", "\u{1F}", "\u{7F}", "é", "/", " "]
        for length in 0...26 {
            for at in 0..<max(length, 1) {
                for special in specials {
                    var plain = Array(repeating: "a", count: length)
                    if at < length { plain[at] = special }
                    let one = plain.joined()
                    #expect(JSONWriter.string(.string(one)) == ReferenceJSONWriter.string(.string(one)), "\(one.debugDescription)")
                    // A second one eight bytes on, in the next word.
                    if at + 8 < length { plain[at + 8] = "\"" }
                    let two = plain.joined()
                    #expect(JSONWriter.string(.string(two)) == ReferenceJSONWriter.string(.string(two)), "\(two.debugDescription)")
                }
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func byteWriterEqualsTheReferenceOnGeneratedValues(_ seed: UInt64) {
        var g = ValueGenerator(state: seed)
        for _ in 0..<300 {
            let v = g.value()
            for options in [JSONWriter.Options.compact, .pretty, .init(sortKeys: true), .init(pretty: true, sortKeys: true, indent: 4)] {
                let fast = JSONWriter.string(v, options: options)
                let plain = ReferenceJSONWriter.string(v, options: options)
                #expect(fast == plain, "\(plain)")
            }
            var bytes: [UInt8] = Array("prefix".utf8)
            JSONWriter.write(v, to: &bytes)
            #expect(bytes == Array(("prefix" + ReferenceJSONWriter.string(v)).utf8))
        }
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the json-schema-test-suite corpus is not run"))
    func byteWriterEqualsTheReferenceOnTheJSONSchemaCorpus() throws {
        guard let folder = SharedCorpus.folder("corpora/json-schema-test-suite/tests/draft7") else {
            Issue.record("../shared is here but corpora/json-schema-test-suite/tests/draft7 is not")
            return
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(files.count > 30)
        for f in files {
            guard let bytes = SharedCorpus.bytes(folder.appendingPathComponent(f)) else { continue }
            let v = try JSONReader.read(bytes).value
            #expect(JSONWriter.string(v) == ReferenceJSONWriter.string(v), "\(f)")
            #expect(JSONWriter.string(v, options: .pretty) == ReferenceJSONWriter.string(v, options: .pretty), "\(f)")
        }
    }

    @Test func integersAtTheirLimits() {
        for i: Int64 in [0, 7, 10, 99, -1, -10, 1_000_000, Int64.max, Int64.min] {
            #expect(JSONWriter.string(.int(i)) == String(i))
        }
    }

    @Test func keptMemberTextIsExactlyTheInputBytes() throws {
        let line = Array(#"{"name":"x","data": {"b" : [1, 2.50, "é\u00e9"], "c":{}} ,"z":1}"#.utf8)
        let (v, text) = try JSONReader.read(line[...], file: "t", keepingTextOf: "data")
        #expect(text.map { String(decoding: $0, as: UTF8.self) } == #"{"b" : [1, 2.50, "é\u00e9"], "c":{}}"#)
        // The text reads back as the member's value.
        #expect(try JSONReader.read(text ?? []).value == v["data"])
    }

    @Test func keptMemberTextIsNilWhenAKeyRepeatsOrTheMemberIsMissingOrNested() throws {
        let duplicate = Array(#"{"data":{"a":1,"a":2}}"#.utf8)
        #expect(try JSONReader.read(duplicate[...], file: "t", keepingTextOf: "data").1 == nil)
        let elsewhere = Array(#"{"data":{"a":1},"other":{"k":1,"k":1}}"#.utf8)
        #expect(try JSONReader.read(elsewhere[...], file: "t", keepingTextOf: "data").1 == nil)
        let missing = Array(#"{"x":{"data":1}}"#.utf8)
        #expect(try JSONReader.read(missing[...], file: "t", keepingTextOf: "data").1 == nil)
        let array = Array(#"[{"data":1}]"#.utf8)
        #expect(try JSONReader.read(array[...], file: "t", keepingTextOf: "data").1 == nil)
    }

    @Test func duplicateKeysStillReplaceEarlierValuesPastTheHashFilter() throws {
        // Many keys, a repeat late: the per-object filter must not hide it.
        var text = "{"
        for i in 0..<20 { text += "\"k\(i)\":\(i)," }
        text += "\"k3\":\"again\",\"K\":1,\"\u{212A}\":2}"
        let v = try JSONReader.value(text)
        guard case .object(let o) = v else { throw Unexpected() }
        #expect(o["k3"] == "again")
        #expect(o.count == 21)  // k0…k19, and K (the Kelvin sign is canonically equivalent to K)
    }

    struct Unexpected: Error {}
}
