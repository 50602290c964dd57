import Foundation
import RuleKitCore
import RuleKitSources
import RuleKitTestSupport
import Testing

/// One filter decides which files are rules and which are rule tests, for every command and for serve's
/// watch; a snapshot is one load, with the stamps and hash of what it read.
@Suite struct RuleSourcesTests {
    static let rule = "rules:\n  - {id: r, when: {key: x, eq: 1}, then: [{add: {y: 2}}]}\n"

    /// A scratch folder with the named files; removed by the caller.
    static func folder(_ files: [String: String]) throws -> URL {
        let dir = Scratch.url("rk-sources-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return dir
    }

    @Test(arguments: [
        ("a.yaml", true, false), ("a.yml", true, false), ("a.json", true, false),
        ("a.test.yaml", false, true), ("a.test.yml", false, true), ("a.test.json", false, true),
        ("my.test.rules.yaml", true, false), (".a.yaml", false, false), ("._a.yaml", false, false),
        ("a.txt", false, false), ("yaml", false, false), (".yaml", false, false), ("README.md", false, false),
    ])
    func oneFilter(name: String, rules: Bool, test: Bool) {
        #expect(RuleSources.isRulesFile(name) == rules)
        #expect(RuleSources.isTestFile(name) == test)
    }

    @Test func aFolderListsRulesAndTestsApartInNameOrder() throws {
        let dir = try Self.folder([
            "b.yaml": Self.rule, "a.json": "{}", "a.test.yml": "cases: []\n", "b.test.yaml": "cases: []\n", ".swp.yaml": "x",
            "notes.txt": "",
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(RuleSources.rulesFiles(dir.path) == ["a.json", "b.yaml"].map { dir.appendingPathComponent($0).path })
        #expect(RuleSources.testFiles(dir.path) == ["a.test.yml", "b.test.yaml"].map { dir.appendingPathComponent($0).path })
        #expect(RuleSources.rulesFiles(dir.appendingPathComponent("none").path) == nil)
        // A file given by name is read as asked, whatever its name.
        let named = dir.appendingPathComponent("notes.txt").path
        #expect(RuleSources.rulesFiles(named) == [named])
        // Serve watches exactly what it loads: test files are not stamped.
        #expect(Set(RuleSources.stamps([dir.path]).keys) == Set(RuleSources.rulesFiles(dir.path) ?? []))
    }

    @Test func testsBesideAFileOrAFolder() throws {
        let dir = try Self.folder(["shop.yaml": Self.rule, "shop.test.yml": "cases: []\n", "other.yaml": Self.rule])
        defer { try? FileManager.default.removeItem(at: dir) }
        let shop = dir.appendingPathComponent("shop.yaml").path
        #expect(RuleSources.testFiles(besides: shop) == [dir.appendingPathComponent("shop.test.yml").path])
        #expect(RuleSources.testFiles(besides: dir.appendingPathComponent("other.yaml").path) == [])
        #expect(RuleSources.testFiles(besides: dir.path) == [dir.appendingPathComponent("shop.test.yml").path])
        #expect(RuleSources.testFiles(besides: "-") == [])
    }

    @Test func aSnapshotIsOneLoadWithItsStampsAndHash() throws {
        let dir = try Self.folder(["a.yaml": Self.rule])
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = RuleSnapshot.load([dir.path])
        #expect(!first.hasErrors)
        #expect(first.ruleCount == 1)
        #expect(first.plans.count == 1)
        #expect(first.stamps == RuleSources.stamps([dir.path]))
        // The same bytes hash the same; a change of one byte does not.
        #expect(RuleSnapshot.load([dir.path]).contentHash == first.contentHash)
        try Self.rule.replacingOccurrences(of: "y: 2", with: "y: 3").write(
            to: dir.appendingPathComponent("a.yaml"), atomically: true, encoding: .utf8)
        let second = RuleSnapshot.load([dir.path])
        #expect(second.contentHash != first.contentHash)
        #expect(second.stamps != first.stamps)
        // The snapshot holds what it read: later changes to the disk do not reach it.
        #expect(first.files.sets.first?.set.rules.first?.consequences.first?.detail["eventdata"]?["y"] == .int(2))
    }

    @Test func findingsOfLoadAndPlanAreTheSnapshots() throws {
        let dir = try Self.folder([
            "bad.yaml": "rules:\n  - {id: b, when: {key: x, eq: [}, then: []}\n",
            "odd.yaml": "rules:\n  - {id: o, when: {key: x, matcher: nope, values: [1]}, then: []}\n",
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = RuleSnapshot.load([dir.path, dir.appendingPathComponent("none.yaml").path])
        #expect(s.hasErrors)
        #expect(s.hasUnreadable)
        #expect(s.errors.contains { $0.location?.file.hasSuffix("bad.yaml") == true })
        #expect(s.diagnostics.contains { $0.location?.file.hasSuffix("odd.yaml") == true })
        #expect(s.render(s.errors).contains("bad.yaml:2:"))
    }
}
