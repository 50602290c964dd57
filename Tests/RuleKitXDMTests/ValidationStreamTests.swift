import Foundation
import RuleKitCore
import RuleKitXDM
import Testing

@Suite struct ValidationStreamTests {
    static let schema = #"{"type":"object","required":["id"],"properties":{"id":{"type":"string"},"n":{"type":"integer","minimum":0}}}"#

    static func verdicts(_ text: String, workers: Int) throws -> [ValidationStream.Verdict] {
        let validator = try JSONSchemaValidator(schema: try JSONReader.read(schema).value)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vs-\(UUID().uuidString).jsonl").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var out: [ValidationStream.Verdict] = []
        try ValidationStream.run(try JSONLinesReader(path: path), validator: validator, workers: workers) { out += $0 }
        return out
    }

    @Test func everyLineGetsItsVerdictInInputOrderOnAnyNumberOfThreads() throws {
        var lines: [String] = []
        for i in 0..<2_000 {
            switch i % 4 {
            case 0: lines.append(#"{"id":"a\#(i)","n":\#(i)}"#)
            case 1: lines.append(#"{"n":-\#(i)}"#)
            case 2: lines.append(#"{"id":\#(i)}"#)
            default: lines.append("{not json")
            }
        }
        let text = lines.joined(separator: "\n") + "\n"
        let alone = try Self.verdicts(text, workers: 0)
        #expect(alone.map(\.line) == Array(1...2_000))
        #expect(try Self.verdicts(text, workers: 3) == alone)
        #expect(alone[0].isValid)
        #expect(Set(alone[1].errors.map(\.path)) == ["", "/n"])
        #expect(alone[2].errors.map(\.path) == ["/id"])
        #expect(alone[3].errors.count == 1 && alone[3].errors[0].path == "" && alone[3].errors[0].message.hasPrefix("not JSON: "))
        #expect(alone.filter(\.isValid).count == 500)
    }

    @Test func aSingleDocumentIsJudgedWholeAndASyntaxErrorKeepsItsLine() throws {
        let validator = try JSONSchemaValidator(schema: try JSONReader.read(Self.schema).value)
        #expect(ValidationStream.document(Array(#"{"id":"x"}"#.utf8), file: "a.json", validator: validator).isValid)
        let wrongType = ValidationStream.document(Array("[1]".utf8), file: "a.json", validator: validator)
        #expect(wrongType.line == 1 && wrongType.errors.map(\.path) == [""])
        let broken = ValidationStream.document(Array("{\n\"id\": \"x\",\n}".utf8), file: "a.json", validator: validator)
        #expect(broken.line == 3 && broken.errors.first?.message.hasPrefix("not JSON: ") == true)
    }
}
