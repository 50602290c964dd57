import Foundation
import RuleKitTestSupport
import Testing

/// Pointer code lives in the folder of the function it serves (the JSON reader, the tape, the YAML parser),
/// not in a folder of its own: what keeps it findable and reviewed is that every file using an unsafe API
/// opens with the invariants it relies on, and that there are few such files.
@Suite struct UnsafeFilesTests {
    @Test func everyFileUsingAnUnsafeAPIOpensWithItsInvariants() throws {
        let sources = SharedCorpus.repositoryRoot.appendingPathComponent("Sources")
        let files =
            FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(files.count > 100, "the sources were not found")
        var unsafe: [String] = []
        for f in files {
            let text = try String(contentsOf: f, encoding: .utf8)
            guard text.contains(/Unsafe(Mutable)?(Raw)?(Buffer)?Pointer|withUnsafe|unsafeBitCast|Unmanaged|unsafeUninitialized/) else {
                continue
            }
            unsafe.append(f.lastPathComponent)
            let head = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(40).joined(separator: "\n")
            #expect(head.contains("nvariant"), "\(f.path) uses an unsafe API and does not open with its invariants")
        }
        // As few files as possible: a new one is a decision, made by raising this bound in review.
        #expect(unsafe.count <= 40, "\(unsafe.count) files use unsafe APIs: \(unsafe.sorted())")
        #expect(unsafe.count >= 20, "the scan found too few files to be looking at the sources")
    }
}
