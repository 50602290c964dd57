import RuleKitCore
import Testing

@testable import RuleKitYAML

@Suite struct ScalarResolutionTests {
    static let table: [(String, Value)] = [
        ("~", .null), ("null", .null), ("Null", .null), ("NULL", .null), ("", .null),
        ("true", .bool(true)), ("True", .bool(true)), ("TRUE", .bool(true)),
        ("false", .bool(false)), ("False", .bool(false)), ("FALSE", .bool(false)),
        ("0", .int(0)), ("42", .int(42)), ("-17", .int(-17)), ("+5", .int(5)), ("007", .int(7)),
        ("0x1F", .int(31)), ("0xff", .int(255)), ("0o17", .int(15)),
        ("9223372036854775807", .int(Int64.max)), ("-9223372036854775808", .int(Int64.min)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        ("22.0", .double(22)), ("1.5", .double(1.5)), ("-0.5", .double(-0.5)), (".5", .double(0.5)),
        ("1.", .double(1)), ("1e3", .double(1000)), ("2.5E-2", .double(0.025)), ("+12e03", .double(12000)),
        (".inf", .double(.infinity)), ("-.Inf", .double(-.infinity)), ("+.INF", .double(.infinity)),
        // YAML 1.1 forms and near-misses stay strings.
        ("yes", "yes"), ("No", "No"), ("on", "on"), ("OFF", "OFF"), ("y", "y"),
        ("0b101", "0b101"), ("010:20", "010:20"), ("1_000", "1_000"), ("0x", "0x"), ("0o8", "0o8"),
        ("-0x1F", "-0x1F"), ("tRue", "tRue"), ("nulls", "nulls"), ("1e", "1e"), (".", "."),
        ("2001-12-14", "2001-12-14"), ("+", "+"), ("1.2.3", "1.2.3"),
    ]

    @Test(arguments: table)
    func plainScalarResolvesByTheCoreSchema(_ text: String, _ expected: Value) throws {
        let doc = try YAMLReader.read("v: \(text)\n")
        let got = try #require(doc.value["v"])
        #expect(got == expected, "'\(text)' resolved to \(got)")
    }

    @Test func nanResolvesToDoubleNaN() throws {
        for text in [".nan", ".NaN", ".NAN"] {
            let v = try YAMLReader.read("v: \(text)").value["v"]
            #expect(v?.doubleValue?.isNaN == true)
        }
    }

    @Test(arguments: ["'true'", "\"42\"", "'~'", "\"\"", "|\n  7\n"])
    func quotedAndBlockScalarsAreStrings(_ text: String) throws {
        let v = try #require(try YAMLReader.read("v: \(text)").value["v"])
        #expect(v.kind == .string)
    }

    static let tagged: [(String, Value)] = [
        ("!!str 42", "42"), ("!!str true", "true"), ("!!int \"12\"", .int(12)), ("!!float 3", .double(3)),
        ("!!bool 'false'", .bool(false)), ("!!null ''", .null), ("! 12", "12"), ("!custom 12", "12"),
    ]

    @Test(arguments: tagged)
    func explicitTagsDecideTheType(_ text: String, _ expected: Value) throws {
        #expect(try YAMLReader.read("v: \(text)").value["v"] == expected)
    }

    @Test(arguments: ["!!int abc", "!!bool yes", "!!float x", "!!null 0"])
    func aScalarThatDoesNotFitItsTagIsALocatedError(_ text: String) {
        #expect(throws: DiagnosticError.self) { try YAMLReader.read("v: \(text)") }
        do {
            _ = try YAMLReader.read("v: \(text)", file: "t.yaml")
        } catch {
            #expect(error.diagnostics.first?.code == .yamlBadTag)
            #expect(error.diagnostics.first?.location == SourceLocation(file: "t.yaml", line: 1, column: 4))
        }
    }

    @Test func yaml11BooleansStayStringsAndAreReportedWhereTheyOccur() throws {
        let doc = try YAMLReader.read("a: yes\nb:\n  - on\n  - 'no'\n", file: "f.yaml")
        #expect(doc.value["a"] == "yes")
        #expect(
            doc.warnings.map(\.location) == [
                SourceLocation(file: "f.yaml", line: 1, column: 4), SourceLocation(file: "f.yaml", line: 3, column: 5),
            ])
        #expect(doc.warnings.allSatisfy { $0.code == .yaml11Boolean && $0.severity == .warning })
    }

    @Test func integerWrittenWithAFractionStaysADouble() throws {
        let v = try YAMLReader.read("a: 22.0\nb: 22").value
        #expect(v["a"] == .double(22))
        #expect(v["b"] == .int(22))
        #expect(JSONWriter.string(v) == #"{"a":22.0,"b":22}"#)
    }
}
