import Foundation
import RuleKitCore
import RuleKitSources
import RuleKitTestSupport
import Testing
import ZIPFoundation

/// A rules zip read as Launch publishes it and as a folder would be, with every bound applied to what the
/// entries really inflate to.
@Suite struct RuleArchiveTests {
    /// A zip of `entries`, deflated.
    static func zip(_ entries: [(String, String)]) throws -> [UInt8] {
        let archive = try Archive(data: Data(), accessMode: .create)
        for (name, text) in entries {
            let bytes = Array(text.utf8)
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) { p, n in
                Data(bytes[Int(p)..<min(bytes.count, Int(p) + n)])
            }
        }
        return [UInt8](archive.data ?? Data())
    }

    @Test func theEntriesLoadedAreLaunchsOrAFoldersOrTheFirstFile() throws {
        func paths(_ entries: [(String, String)]) throws -> [String] {
            try RuleArchive.read(try Self.zip(entries), name: "r.zip").rulesEntries.map(\.path)
        }
        #expect(try paths([("a.json", "{}"), ("rules.json", "{}")]) == ["rules.json"])
        #expect(
            try paths([("Rules/b.yaml", ""), ("Rules/a.yaml", ""), ("Rules/a.test.yaml", ""), ("Rules/x/c.yaml", "")]) == [
                "Rules/a.yaml", "Rules/b.yaml",
            ])
        #expect(try paths([("__MACOSX/._rules.txt", ""), ("rules.txt", "{}")]) == ["rules.txt"])
        let archive = try RuleArchive.read(try Self.zip([("Rules/a.yaml", ""), ("Rules/a.test.yaml", "")]), name: "r.zip")
        #expect(archive.testEntries.map(\.path) == ["Rules/a.test.yaml"])
        #expect(archive.name(of: archive.entries[0]) == "r.zip!Rules/a.yaml")
    }

    @Test func anArchiveWhoseHeadersLieIsBoundedByWhatItInflates() throws {
        var bytes = try Self.zip([("rules.json", String(repeating: " ", count: 1 << 20))])
        // The uncompressed size of the local header (offset 22) and of the central directory entry (offset
        // 24 from its signature) say 10 bytes.
        func patch(_ at: Int) { for (i, b) in [UInt8](arrayLiteral: 10, 0, 0, 0).enumerated() { bytes[at + i] = b } }
        patch(22)
        if let central = (0..<(bytes.count - 4)).last(where: { bytes[$0..<($0 + 4)] == [0x50, 0x4B, 0x01, 0x02] }) {
            patch(central + 24)
        }
        let limits = RuleArchive.Limits(maxArchiveBytes: 1 << 20, maxEntries: 10, maxTotalBytes: 64 << 10, maxPathLength: 100)
        #expect(throws: DiagnosticError.self) { try RuleArchive.read(bytes, name: "lie.zip", limits: limits) }
        do {
            _ = try RuleArchive.read(bytes, name: "lie.zip", limits: limits)
        } catch {
            #expect(error.diagnostics.first?.code == .archiveInvalid)
        }
    }

    @Test func everyBoundRefusesTheWholeArchive() throws {
        let small = RuleArchive.Limits(maxArchiveBytes: 4096, maxEntries: 2, maxTotalBytes: 100, maxPathLength: 20)
        let cases: [([(String, String)], String)] = [
            ([("a.json", "{}"), ("b.json", "{}"), ("c.json", "{}")], "more than 2 entries"),
            ([("a.json", String(repeating: "x", count: 101))], "inflate to more than"),
            ([(String(repeating: "d/", count: 11) + "a.json", "{}")], "longer than 20"),
            ([("a/../../b.json", "{}")], "'..' step"),
            ([("C:/b.json", "{}")], "drive"),
        ]
        for (entries, why) in cases {
            let bytes = try Self.zip(entries)
            do {
                _ = try RuleArchive.read(bytes, name: "x.zip", limits: small)
                Issue.record("\(entries.map(\.0)) was read")
            } catch {
                #expect(error.diagnostics.first?.message.contains(why) == true, "\(error.diagnostics)")
            }
        }
        #expect(throws: DiagnosticError.self) { try RuleArchive.read(Array(repeating: 0, count: 5000), name: "big.zip", limits: small) }
    }

    @Test func aPackedZipReadsBackAsItsRules() throws {
        let json = #"{"version":1,"rules":[]}"#
        let zip = try RuleArchive.launchZip(rulesJSON: Array(json.utf8))
        let archive = try RuleArchive.read(zip, name: "rules.zip")
        #expect(archive.rulesEntries.map(\.path) == ["rules.json"])
        #expect(String(decoding: archive.rulesEntries[0].bytes, as: UTF8.self) == json)
        var files = RuleFiles()
        files.addArchive(zip, name: "rules.zip")
        #expect(files.diagnostics.isEmpty)
        #expect(files.sets.map(\.path) == ["rules.zip!rules.json"])
    }
}
