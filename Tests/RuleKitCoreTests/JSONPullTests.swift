import Testing

@testable import RuleKitCore

@Suite struct JSONPullTests {
    /// Reads `{"name": string, "tags": [values...]}` the way a loader does, giving up at anything else.
    static func read(_ text: String, limits: ReaderLimits = .default) -> (String, [Value], RuleKitCore.SourceLocation)? {
        read(bytes: Array(text.utf8), limits: limits)
    }

    static func read(bytes: [UInt8], limits: ReaderLimits = .default) -> (String, [Value], RuleKitCore.SourceLocation)? {
        JSONPull.read(bytes, file: "t.json", limits: limits) { r in
            guard r.peek() == UInt8(ascii: "{"), r.node() else { return nil }
            let at = r.location()
            var name: String?
            var tags: [Value] = []
            let ok = r.members { r, k in
                switch k {
                case "name":
                    guard name == nil, r.node(), let s = r.string() else { return false }
                    name = s
                    return true
                case "tags":
                    guard r.node() else { return false }
                    return r.elements { r in
                        guard let v = r.value(depth: 2) else { return false }
                        tags.append(v)
                        return true
                    }
                default:
                    return false
                }
            }
            guard ok, r.atEnd(), let name else { return nil }
            return (name, tags, at)
        }
    }

    @Test func readsTheStructureItKnowsAndValuesAsTheReaderDoes() throws {
        let (name, tags, at) = try #require(Self.read("\n  {\"name\": \"n\\u00e9\", \"tags\": [1, 2.0, {\"a\": [null]}, \"x\"]}\n"))
        #expect(name == "né")
        #expect(tags == [.int(1), .double(2), try JSONReader.value(#"{"a": [null]}"#), .string("x")])
        #expect(at == RuleKitCore.SourceLocation(file: "t.json", line: 2, column: 3))
        #expect(Self.read(#"{"tags": [], "name": ""}"#)?.0 == "")
    }

    @Test func givesUpInsteadOfReporting() {
        for text in [
            #"{"name": "a", "name": "b"}"#,  // the caller refuses a repeated key
            #"{"name": "a", "other": 1}"#,  // or an unknown one
            #"{"n\u0061me": "a"}"#,  // escaped keys are not plain
            #"{"name": "a",}"#, #"{"name": "a"} x"#, #"{"tags": [1,], "name": "a"}"#, #"{"name": "a""#,
            "{\"name\": \"bad \u{1}\"}", "",
        ] {
            #expect(Self.read(text) == nil, "\(text)")
        }
        // Invalid UTF-8 in a string.
        #expect(Self.read(bytes: Array(#"{"name": ""#.utf8) + [0xFF] + Array(#""}"#.utf8)) == nil)
    }

    @Test func limitsHold() {
        let text = #"{"name": "a long enough name", "tags": [[[[1]]]]}"#
        #expect(Self.read(text) != nil)
        #expect(Self.read(text, limits: ReaderLimits(maxDepth: 4)) == nil)
        #expect(Self.read(text, limits: ReaderLimits(maxNodes: 5)) == nil)
        #expect(Self.read(text, limits: ReaderLimits(maxScalarBytes: 8)) == nil)
        #expect(Self.read(text, limits: ReaderLimits(maxDocumentBytes: 10)) == nil)
    }

    @Test func repeatedLongStringsShareTheirStorage() throws {
        let (_, tags, _) = try #require(Self.read(#"{"name": "n", "tags": ["https://shop.example.com/", "https://shop.example.com/"]}"#))
        let a = try #require(tags[0].unsafeLongStringUTF8?.baseAddress)
        let b = try #require(tags[1].unsafeLongStringUTF8?.baseAddress)
        #expect(a == b)
    }
}
