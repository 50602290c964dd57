import Foundation
import RuleKitCore
import Testing

@testable import RuleKitLSP

/// A check that carries the last check's libyaml events over (`YAMLEventLog`, re-reading only the edited
/// rule or the text above the rules) publishes what a check reading the whole text finds.
@Suite struct CarriedEventsTests {
    static let text = """
        version: 1
        shared:
          launch: &launch {key: '~source', eq: com.adobe.eventSource.applicationLaunch}
        rules:
          - id: one
            when:
              all:
                - *launch
                - {key: xdm.eventType, ne: commerce.purchases}
            then:
              - id: t1
                add: {data: {a: 1}}
          - id: two
            when:
              any:
                - {key: xdm.commerce.order.priceTotal, gt: "5"}
            then:
              - id: t2
                add: {data: {b: 2}}
          - id: three
            when: {key: xdm.nothere, eq: 1}
            then:
              - id: t3
                add: {data: {c: 3}}

        """

    /// Each text follows the one before: inside a rule, above the rules, a line added, an id repeated
    /// across rules, an edit across two rules, a syntax error and its fix.
    static let edits: [(String, String)] = [
        ("ne: commerce.purchases", "ne: commerce.purchase"),
        ("applicationLaunch}", "applicationLaunchX}"),
        ("    any:\n", "    anyy:\n"),
        ("  - id: two\n", "  - id: two\n    description: added\n"),
        ("- id: three", "- id: two"),
        ("id: t1", "id: t9"),
        ("eq: 1}", "eq: 1"),
        ("eq: 1\n", "eq: 1}\n"),
        ("version: 1\n", "version: 1\n# a comment\n"),
    ]

    @Test func aCheckFromCarriedEventsPublishesWhatAFullCheckFinds() throws {
        let root = try LSPSession.workspace([:])
        let s = LSPSession()
        _ = s.initialize(root: root)
        s.waitForWorkspace()
        let url = root.appendingPathComponent("Rules/carried.yaml")
        var text = Self.text
        s.open(url, text)
        _ = try #require(s.diagnostics(url, version: 1))
        for (i, (from, to)) in Self.edits.enumerated() {
            let version = i + 2
            #expect(text.contains(from), "edit \(i)")
            text = text.replacingOccurrences(of: from, with: to)
            s.change(url, version: version, text: text)
            let published = try #require(s.diagnostics(url, version: version))
            let linter = s.server.workspace.withLock { $0.linter }
            let full = try #require(DocumentCheck.run(path: url.path, kind: .rules, bytes: Array(text.utf8), linter: linter))
            let document = TextDocument(uri: url.absoluteString, version: version, text: text)
            #expect(Value.array(published) == DiagnosticsFeature.json(full.diagnostics, in: document), "edit \(i): \(to)")
        }
        // The edits inside one rule or above the rules were carried over; the others were read whole.
        #expect(s.server.scheduler.splicedChecks.withLock { $0 } >= 6)
    }
}
