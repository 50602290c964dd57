import Foundation
import Testing

@testable import RuleKitCore

@Suite struct JSONLinesTests {
    @Test func streamsRecordsAcrossChunkBoundariesAndReportsBadLines() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rk-\(UUID()).jsonl").path
        var text = ""
        for i in 0..<500 { text += "{\"i\": \(i), \"pad\": \"\(String(repeating: "x", count: i % 37))\"}\n" }
        text += "\n{broken\n{\"last\": true}"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }

        var good = 0
        var bad: [DiagnosticError] = []
        for r in try JSONLinesReader(path: path, chunkSize: 97) {
            switch r {
            case .success: good += 1
            case .failure(let e): bad.append(e)
            }
        }
        #expect(good == 501)
        #expect(bad.count == 1)
        #expect(bad.first?.diagnostics[0].location?.line == 502)
    }

    @Test func missingFileIsAnError() {
        #expect(throws: DiagnosticError.self) { try JSONLinesReader(path: "/no/such/file.jsonl") }
    }
}
