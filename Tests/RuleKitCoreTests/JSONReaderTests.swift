import RuleKitTestSupport
import Testing

@testable import RuleKitCore

/// RFC 8259 acceptance table, in the spirit of JSONTestSuite's y_/n_ cases.
@Suite struct JSONReaderTests {
    static let valid: [(String, Value)] = [
        ("null", .null), ("true", true), ("false", false), ("0", 0), ("-0", 0), ("123", 123),
        ("-9223372036854775808", .int(Int64.min)), ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        ("1.5", 1.5), ("22.0", .double(22)), ("1e2", .double(100)), ("1E+2", .double(100)), ("-1.25e-2", -0.0125),
        (#""""#, ""), (#""a\"b\\c\/d""#, "a\"b\\c/d"), (#""\b\f\n\r\t""#, "\u{8}\u{c}\n\r\t"),
        (#""\u00e9\u4e2d""#, "é中"), (#""\ud83d\ude00""#, "😀"), (#""é""#, "é"),
        ("[]", []), ("{}", [:]), (" [1, [2, {\"a\": []}]] ", [1, [2, ["a": []]]]),
        (#"{"b":1,"a":2}"#, ["b": 1, "a": 2]), (#"{"a":1,"a":2}"#, ["a": 2]),
        ("\t\r\n 7 \n", 7),
    ]

    @Test(arguments: valid)
    func validDocumentsRead(_ text: String, _ expected: Value) throws {
        let v = try JSONReader.value(text)
        #expect(v == expected)
        #expect(v.kind == expected.kind)
    }

    static let invalid: [(String, String)] = [
        ("[1,]", "trailing comma"), (#"{"a":1,}"#, "trailing comma"), ("[1 2]", "expected ',' or ']'"),
        ("01", "leading zeros"), ("-01", "leading zeros"), ("1.", "fraction needs digits"), (".5", "expected a value"),
        ("1e", "exponent needs digits"), ("+1", "expected a value"), ("NaN", "NaN"), ("Infinity", "NaN and Infinity"),
        ("-Infinity", "needs digits"), (#""\x""#, "invalid escape"), (#""\u12""#, "four hex digits"),
        (#""\ud800""#, "lone high surrogate"), (#""\udc00""#, "lone low surrogate"),
        (#""\ud800\u0041""#, "not followed by a low surrogate"), ("\"a\u{1}b\"", "control character"),
        ("\"a\nb\"", "control character"), ("'a'", "expected a value"), ("[1", "end of input"), ("{\"a\" 1}", "expected ':'"),
        ("{a:1}", "expected a string key"), ("tru", "invalid literal"), ("nul", "invalid literal"), ("1 2", "after the JSON value"),
        ("", "end of input"), ("\u{FEFF}1", "byte order mark"), ("[1,,2]", "expected a value"),
        ("{\"a\":1 \"b\":2}", "expected ',' or '}'"),
    ]

    @Test(arguments: invalid)
    func invalidDocumentsAreRejectedWithAReason(_ text: String, _ reason: String) {
        do {
            _ = try JSONReader.value(text)
            Issue.record("accepted \(text)")
        } catch {
            let d = error.diagnostics[0]
            #expect(d.message.contains(reason), "\(text): \(d.message)")
            #expect(d.location != nil)
        }
    }

    /// Strings are scanned eight bytes at a time: every special byte at every position of a word (and
    /// past the last whole word) must still be seen.
    @Test func specialBytesAreSeenAtEveryPosition() throws {
        let cases: [(written: String, meant: String)] = [
            (#"\""#, "\""), (#"\\"#, "\\"), (#"\n"#, "\n"), ("é", "é"), (#"\u00e9"#, "é"),
        ]
        for length in 1..<20 {
            for position in 0..<length {
                for c in cases {
                    var text = Array(repeating: "a", count: length)
                    text[position] = c.written
                    var expected = Array(repeating: "a", count: length)
                    expected[position] = c.meant
                    let json = #"[""# + text.joined() + #"", 1]"#
                    #expect(try JSONReader.value(json) == .array([.string(expected.joined()), 1]), "\(json)")
                }
                var bytes = Array(#"""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: length) + Array(#"""#.utf8)
                bytes[1 + position] = 0x01
                #expect(throws: DiagnosticError.self) { try JSONReader.read(bytes) }
                bytes[1 + position] = 0xFF
                #expect(throws: DiagnosticError.self) { try JSONReader.read(bytes) }
            }
        }
        // A column after non-ASCII text scanned in whole words still counts characters.
        let doc = try JSONReader.read(#"{"k": "ééééééééé", "x": [1]}"#, keepSourceMap: true)
        #expect(doc.root["x"]?.location?.column == 25)
    }

    /// A U+FEFF inside a text is a character like any other (RFC 8259 only forbids a byte order mark
    /// before the text): kept at the start of keys and strings, where Foundation drops it.
    @Test func aLeadingZeroWidthNoBreakSpaceIsKept() throws {
        let v = try JSONReader.read(Array("{\"\u{FEFF}a\":\"\u{FEFF}b\",\"a\":1}".utf8)).value
        #expect(v.objectValue?.count == 2)
        #expect(v["\u{FEFF}a"] == .string("\u{FEFF}b") && v["a"] == .int(1))
        let tape = try JSONReader.read(Array("{\"data\":{\"k\":\"\u{FEFF}v\"}}".utf8)[...], file: "t", tapeOf: "data").tape
        #expect(tape?.object()["k"] == .string("\u{FEFF}v"))
    }

    @Test func invalidUTF8IsRejected() {
        #expect(throws: DiagnosticError.self) { try JSONReader.read([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: DiagnosticError.self) { try JSONReader.read([0x22, 0xED, 0xA0, 0x80, 0x22]) }
    }

    @Test func errorsCarryLineAndColumn() {
        do {
            _ = try JSONReader.read("{\n  \"a\": 1,\n  \"b\": tru\n}", file: "x.json")
        } catch {
            #expect(error.diagnostics[0].location == SourceLocation(file: "x.json", line: 3, column: 8))
        }
    }

    @Test func columnsCountCharactersNotBytes() {
        do {
            _ = try JSONReader.read("[\"é\", x]", file: "x.json")
        } catch {
            #expect(error.diagnostics[0].location?.column == 7)
        }
    }

    @Test func limitsBoundHostileInput() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: DiagnosticError.self) { try JSONReader.value(deep) }
        do {
            _ = try JSONReader.value(String(repeating: "[", count: 300) + String(repeating: "]", count: 300))
        } catch {
            #expect(error.diagnostics[0].code == .limitExceeded)
        }
        #expect(throws: DiagnosticError.self) {
            try JSONReader.read("\"\(String(repeating: "x", count: 100))\"", limits: ReaderLimits(maxScalarBytes: 10))
        }
        #expect(throws: DiagnosticError.self) {
            try JSONReader.read("[1,2,3,4,5]", limits: ReaderLimits(maxNodes: 3))
        }
        #expect(throws: DiagnosticError.self) {
            try JSONReader.read("[1,2,3,4,5]", limits: ReaderLimits(maxDocumentBytes: 4))
        }
    }

    @Test func sourceMapPointsAtNodesAndKeys() throws {
        let doc = try JSONReader.read(
            "{\n  \"rules\": [\n    {\"id\": \"r1\", \"x\": [true]}\n  ]\n}", file: "r.json",
            keepSourceMap: true)
        let rule = try #require(doc.root["rules"]?[0])
        #expect(rule.location == SourceLocation(file: "r.json", line: 3, column: 5))
        #expect(rule["x"]?[0]?.location == SourceLocation(file: "r.json", line: 3, column: 24))
        #expect(rule["x"]?.keyLocation == SourceLocation(file: "r.json", line: 3, column: 18))
        #expect(rule["x"]?.pointer == "/rules/0/x")
    }

    @Test func sourceMapStaysAlignedAfterADuplicateKey() throws {
        let doc = try JSONReader.read(#"{"a": [1, 2], "b": 3, "a": {"c": 4}}"#, keepSourceMap: true)
        #expect(doc.value == ["a": ["c": 4], "b": 3])
        #expect(doc.root["b"]?.location?.column == 20)
        #expect(doc.root["a"]?["c"]?.location?.column == 34)
    }

    @Test func duplicateKeysAreFoundInSmallAndLargeObjects() throws {
        // Below and above the count where the reader switches from scanning to hashing keys.
        for n in [3, 23, 24, 25, 60] {
            let members = (0..<n).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
            let doc = try JSONReader.read("{\(members), \"k1\": \"again\", \"k\(n - 1)\": [true]}", keepSourceMap: true)
            let o = try #require(doc.value.objectValue)
            #expect(o.count == n, "n = \(n)")
            #expect(o.key(at: 1) == "k1" && o["k1"] == "again", "n = \(n)")
            #expect(o.key(at: n - 1) == "k\(n - 1)" && o["k\(n - 1)"] == [true], "n = \(n)")
            #expect(doc.root["k\(n - 1)"]?[0]?.pointer == "/k\(n - 1)/0")
        }
    }

    @Test func canonicallyEquivalentKeysAreDuplicates() throws {
        // As `String` equality (and so `ValueObject` lookups) has it: "é" precomposed or not, and the
        // Kelvin sign, which is canonically the ASCII letter K.
        #expect(try JSONReader.value(#"{"\u00e9": 1, "e\u0301": 2}"#) == ["é": 2])
        #expect(try JSONReader.value(#"{"K": 1, "\u212a": 2, "k": 3}"#) == ["K": 2, "k": 3])
        let keys = (0..<30).map { "\"a\($0)\": 0" }.joined(separator: ",")
        #expect(try JSONReader.value(#"{\#(keys), "\u00e9": 1, "e\u0301": 2}"#).objectValue?.count == 31)
    }

    @Test func keysRememberWhetherTheyHoldADot() throws {
        #expect(try JSONReader.value(#"{"a": {"b.c": 1}, "d": 2}"#).objectValue?.mayHaveDottedKeys == false)
        #expect(try JSONReader.value(#"{"a": {"b.c": 1}}"#)["a"]?.objectValue?.mayHaveDottedKeys == true)
        #expect(try JSONReader.value(#"{"x\u002ey": 1}"#).objectValue?.mayHaveDottedKeys == true)
    }

    @Test func columnsOnAOneLineDocumentAreExactAndLinear() throws {
        // A minified document on one line: every node's column is counted on from the previous one (a
        // recount from the line start per node would take minutes here).
        let n = 100_000
        let text = "[" + (0..<n).map { "{\"é\": \($0)}" }.joined(separator: ",") + "]"
        let doc = try JSONReader.read(text, keepSourceMap: true)
        // Each element is `{"é": i}` plus a comma: 8 characters plus the digits of i.
        var column = 2
        for i in [0, 1, 2, 10, 99_999] {
            if i > 0 { column = 2 + (0..<i).reduce(0) { $0 + 8 + String($1).count } }
            #expect(doc.root[i]?.location?.column == column, "element \(i)")
            #expect(doc.root[i]?["é"]?.location?.column == column + 6, "element \(i)")
            #expect(doc.root[i]?["é"]?.keyLocation?.column == column + 1, "element \(i)")
        }
    }

    @Test func sequencesOfTextsRead() throws {
        #expect(try JSONReader.readSequence(Array("1 {\"a\":2}\n[3]".utf8)) == [1, ["a": 2], [3]])
        #expect(try JSONReader.readSequence([]) == [])
    }
}

/// Found by fuzz-json (Foundation refuses these; RuleKit read them as infinity and wrote `null` back).
@Suite struct JSONNumberRangeTests {
    @Test(arguments: [
        "4e904", "-1e400", "[1, 2e308]",
        "{\"a\": 179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792}",
    ])
    func numbersPastDoubleRangeAreRefused(_ text: String) {
        #expect {
            try JSONReader.value(text)
        } throws: { error in
            (error as? DiagnosticError)?.diagnostics.first?.message.contains("out of range") == true
        }
    }

    @Test func theLargestDoubleIsRead() throws {
        #expect(try JSONReader.value("1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
        #expect(try JSONReader.value("1e-400") == .double(0))
    }
}

/// The fast decimal-to-double path against `strtod` (its reference), bit for bit, on numbers around the
/// edges of the path: 15 to 19 digits, exponents near ±22, significands near 2^53, zeros and signs.
@Suite struct FastDoubleTests {
    static func texts(_ seed: UInt64) -> [String] {
        var g = SeededGenerator(state: seed)
        func next() -> UInt64 { g.next() }
        var out = [
            "0.0", "-0.0", "0e0", "-0e-5", "9007199254740992.0", "9007199254740993.0", "9007199254740991e22",
            "1e22", "1e23", "1e-22", "1e-23", "0.1", "0.2", "0.3", "959.45", "-479.72", "123456789012345678.9",
            "1234567890123456789", "12345678901234567890.0", "0.000000000000000000001", "4.9e-324", "1.7976931348623157e308",
            "2.2250738585072014e-308", "1E+2", "1e+0", "00000000000000000000001.5",
        ]
        for _ in 0..<20_000 {
            let digits = Int(next() % 19) + 1
            var d = ""
            for k in 0..<digits { d += String(k == 0 ? next() % 9 + 1 : next() % 10) }
            let point = Int(next() % UInt64(digits + 1))
            var text = String(d.prefix(point)) + "." + String(d.dropFirst(point))
            if text.hasPrefix(".") { text = "0" + text }
            if text.hasSuffix(".") { text += "0" }
            if next() % 2 == 0 { text += "e" + String(Int(next() % 61) - 30) }
            if next() % 3 == 0 { text = "-" + text }
            out.append(text)
        }
        return out
    }

    @Test(arguments: [1, 2] as [UInt64])
    func agreesWithTheCLibrary(_ seed: UInt64) {
        var fast = 0
        for text in Self.texts(seed) {
            var bytes = Array(text.utf8)
            let (f, c) = bytes.withUnsafeMutableBufferPointer { b in
                (fastDouble(UnsafeBufferPointer(b)), libcDouble(UnsafeBufferPointer(b)))
            }
            if let f {
                fast += 1
                #expect(f.bitPattern == c.bitPattern, "\(text): \(f) against \(c)")
            }
            #expect(parseDoubleOf(&bytes).bitPattern == c.bitPattern, "\(text)")
        }
        // Most of these take the fast path, or this tests little.
        #expect(fast > 5_000)
    }

    private func parseDoubleOf(_ bytes: inout [UInt8]) -> Double {
        bytes.withUnsafeBufferPointer { parseDouble($0) }
    }
}
