import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitServe

/// The contract's text: `docs/openapi.yaml` is what `GET /openapi.yaml` answers (rewritten from the source
/// with `RULEKIT_UPDATE_GOLDEN=1`), and every route the gate lets through is a path of the document, with
/// the same methods.
@Suite struct OpenAPIDocumentTests {
    @Test func theFileIsTheServedDocument() throws {
        let url = SharedCorpus.repositoryRoot.appendingPathComponent("docs/openapi.yaml")
        if ProcessInfo.processInfo.environment["RULEKIT_UPDATE_GOLDEN"] == "1" {
            try (OpenAPIDocument.yaml + "\n").write(to: url, atomically: true, encoding: .utf8)
        }
        #expect(try String(contentsOf: url, encoding: .utf8) == OpenAPIDocument.yaml + "\n")
    }

    @Test func theDocumentHasEveryRouteWithItsMethods() {
        let lines = OpenAPIDocument.yaml.split(separator: "\n").map(String.init)
        var documented: [String: [String]] = [:]
        var current: String?
        for line in lines {
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                current = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("components:") {
                current = nil
            } else if let c = current, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"), line != "    parameters:" {
                documented[c, default: []].append(line.trimmingCharacters(in: .whitespaces).dropLast().uppercased())
            }
        }
        let admin = HistoryRoutes.table.merging(PostbackRoutes.table) { a, _ in a }
        let served = ServeRoutes.methods.merging(admin.mapValues { $0.map(\.rawValue) }) { a, _ in a }
        #expect(documented.mapValues { $0.sorted() } == served.mapValues { $0.sorted() })
    }
}
