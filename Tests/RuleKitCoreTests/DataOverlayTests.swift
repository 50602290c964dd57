import Foundation
import RuleKitTestSupport
import Testing

@testable import RuleKitCore

/// The tape writer and the merge overlay against their references: `JSONWriter` on the tape's object, and
/// `EventDataMerge.merge` on it. Every byte written from a tape must be the reference's.
@Suite struct DataOverlayTests {
    /// Keys shared by bases and patches, so that they meet: plain ones, a wildcard, and a non-ASCII key that
    /// equals an ASCII one ("\u{212A}", the Kelvin sign, is canonically "K").
    static let keys = ["a", "b", "xdm", "K", "list", "n", "a[*]", "\u{212A}", "long.key.over.sixteen"]

    /// A value over the shared keys, with the merge's cases often: nulls, objects, arrays, both zeros.
    static func value(_ g: inout ValueGenerator, depth: Int = 0, plainKeys: Bool) -> Value {
        switch g.below(depth > 2 ? 7 : 10) {
        case 0, 1: return .null
        case 2: return .int(Int64(g.below(3)))
        case 3: return .double([0.0, -0.0, 1.5][g.below(3)])
        case 4: return .string(["x", "é", "e\u{301}", "q\"uote", "tab\t"][g.below(5)])
        case 5, 6: return .array((0..<g.below(3)).map { _ in value(&g, depth: depth + 1, plainKeys: plainKeys) })
        default: return .object(object(&g, depth: depth + 1, plainKeys: plainKeys))
        }
    }

    static func object(_ g: inout ValueGenerator, depth: Int = 0, plainKeys: Bool) -> ValueObject {
        var o = ValueObject()
        let pool = plainKeys ? keys.filter { $0.utf8.allSatisfy { $0 < 0x80 } && !$0.contains("[*]") } : keys
        for _ in 0..<g.below(5) { o[pool[g.below(pool.count)]] = value(&g, depth: depth, plainKeys: plainKeys) }
        return o
    }

    static func compact(_ o: ValueObject) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.write(o, to: &out)
        return out
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func mergesWrittenFromTheTapeAreTheReferences(_ seed: UInt64) throws {
        var g = ValueGenerator(state: seed)
        var fast = 0
        var changed = 0
        var clean = 0
        for round in 0..<300 {
            // Bases with wildcard keys too, now and then (the tape takes them: they are plain ASCII).
            let base = Self.object(&g, plainKeys: round % 5 != 0)
            guard let tape = JSONTape.of(base) else { continue }
            let patch = Self.object(&g, plainKeys: round % 3 != 0)
            for overwrite in [false, true] {
                let merged = EventDataMerge.merge(to: tape.object(), from: patch, overwrite: overwrite)
                let overlay = DataOverlay(base: tape, patch: patch, overwrite: overwrite)
                let comment = Comment(rawValue: "base \(Value.object(base)) patch \(Value.object(patch)) overwrite \(overwrite)")
                var out: [UInt8] = []
                overlay.write(to: &out)
                #expect(out == Self.compact(merged), comment)
                #expect(overlay.object() == merged, comment)
                let changes = overlay.changesData()
                #expect(changes == (merged != tape.object()), comment)
                if changes { changed += 1 }
                if !overlay.mayChangeMember("xdm") { #expect(merged["xdm"] == tape.object()["xdm"], comment) }
                var direct: [UInt8] = []
                if tape.withUnsafeView({ $0.writeMerged(0, patch, overwrite: overwrite, to: &direct) }) { fast += 1 }
                // Step 2 alone (no patch) leaves the data as it is exactly when the walk says so.
                var cleaned: [UInt8] = []
                let written = tape.withUnsafeView { $0.writeMerged(0, nil, overwrite: overwrite, to: &cleaned) }
                let same = written && cleaned == Self.compact(tape.object())
                #expect(tape.withUnsafeView { $0.isClean(0) } == same, comment)
                #expect(tape.withUnsafeView { $0.cleanByWalk(0) } == same, comment)
                if same { clean += 1 }
            }
        }
        // Most merges must take the tape path, and change something, or this tests little.
        #expect(fast > 200 && changed > 100 && clean > 20 && clean < 580)
    }

    /// The reader's clean flag (invariant 9) against the walk, on every object node of a tape: set only
    /// where the walk says clean, and set on every object with no null and no '[' key under it. Keys long enough
    /// to be scanned a word at a time, a '[' on either side of a word's edge, nulls at depth and in arrays.
    @Test func theReadersCleanFlagIsTheWalks() throws {
        let texts = [
            #"{"a":1,"b":{"c":"x","d":{"e":[null,{"n":null}]}},"l":[1,2],"o":{}}"#,
            #"{"a":1,"b":{"c":"x","d":{"e":null}}}"#,
            #"{"a":null}"#,
            #"{"longer.key.words":{"and.another.one.x":true},"items[*]":{"k":1}}"#,
            #"{"abcdefg[":{"k":1},"x":{"abcdefgh[*]ij":2},"y":{"[":3},"z":{"abcdefghijklmno[":{}}}"#,
            #"{"xdm":{"identityMap":{"ECID":[{"id":"1","primary":true}]},"web":{"webPageDetails":{"name":"home"}}}}"#,
            #"{}"#,
        ]
        var flagged = 0
        for text in texts {
            let tape = try #require(JSONReader.tape(ArraySlice(text.utf8)), "\(text)")
            tape.withUnsafeView { view in
                for i in 0..<view.nodes.count where view.nodes[i].kind == .object {
                    let walk = view.cleanByWalk(i)
                    let flag = view.nodes[i].flags & JSONTape.Node.cleanFlag != 0
                    #expect(!flag || walk, "node \(i) of \(text): flagged clean, and the walk finds a null or [*]")
                    #expect(view.isClean(i) == walk, "node \(i) of \(text)")
                    if flag { flagged += 1 }
                }
            }
        }
        // The flag is the fast path: the clean objects of the texts without '[' carry it.
        let plain = try #require(JSONReader.tape(ArraySlice(texts[5].utf8)))
        plain.withUnsafeView { view in
            for i in 0..<view.nodes.count where view.nodes[i].kind == .object {
                #expect(view.nodes[i].flags & JSONTape.Node.cleanFlag != 0, "node \(i) of the xdm text is not flagged clean")
            }
        }
        // Objects with a '[' key, or a null under them, are not flagged; a null inside an array counts too
        // (the reader counts every null), though the walk, which does not look into arrays, finds it clean.
        let first = try #require(JSONReader.tape(ArraySlice(texts[0].utf8)))
        first.withUnsafeView { #expect($0.nodes[0].flags & JSONTape.Node.cleanFlag == 0 && $0.isClean(0)) }
        let bracket = try #require(JSONReader.tape(ArraySlice(texts[4].utf8)))
        bracket.withUnsafeView { #expect($0.nodes[0].flags & JSONTape.Node.cleanFlag == 0) }
        let null = try #require(JSONReader.tape(ArraySlice(texts[1].utf8)))
        null.withUnsafeView { #expect($0.nodes[0].flags & JSONTape.Node.cleanFlag == 0 && !$0.isClean(0)) }
        #expect(flagged > 10)
    }

    /// Text as written with spaces, escapes and number spellings the writer would not use: what the merge
    /// leaves is copied from the text as written, only what it changes is encoded.
    @Test func aMergeCopiesWhatItLeavesAsWritten() throws {
        let text = #"{ "a" : 1.50, "b": {"c":"\u00e9" , "n": null, "d": {"e": [ 1 ]}}, "l": [1, 2 ], "o": {"p": 1e2}, "s":"x" }"#
        let tape = try #require(JSONReader.tape(ArraySlice(text.utf8)))
        var out: [UInt8] = []
        DataOverlay(base: tape, patch: ["l": [3], "o": ["q": true], "z": 1, "s": "no"], overwrite: false).write(to: &out)
        // `b` loses its null (cleaned, its other members as written), `l` keeps its elements as written and
        // gets the patch's, `o` is merged, `s` stays (add), `z` is added.
        let added = #"{"a":1.50,"b":{"c":"\u00e9","d":{"e": [ 1 ]}},"l":[1, 2,3],"o":{"p":1e2,"q":true},"s":"x","z":1}"#
        #expect(String(decoding: out, as: UTF8.self) == added)
        out.removeAll()
        DataOverlay(base: tape, patch: ["s": "yes", "a": nil, "l": [], "b": ["d": 0]], overwrite: true).write(to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"{"b":{"c":"\u00e9","d":0},"l":[1, 2],"o":{"p": 1e2},"s":"yes"}"#)
        // Over several lines, everything is encoded: a line of JSON-lines output stays one line.
        let lines = try #require(JSONReader.tape(ArraySlice("{\"a\": 1.50,\n \"l\": [1]}".utf8)))
        out.removeAll()
        DataOverlay(base: lines, patch: ["z": 1], overwrite: false).write(to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"{"a":1.5,"l":[1],"z":1}"#)
    }

    /// Generated bases written with spaces: every merge reads back as the reference's, on one line, and the
    /// members it leaves keep their spaces (the encoder writes none).
    @Test(arguments: [31, 32, 33] as [UInt64])
    func mergesOverSpacedTextReadAsTheReference(_ seed: UInt64) throws {
        var g = ValueGenerator(state: seed)
        var verbatim = 0
        for _ in 0..<300 {
            let base = Self.object(&g, plainKeys: true)
            let spaced = JSONWriter.string(.object(base), options: .pretty).replacingOccurrences(of: "\n", with: " ")
            guard let tape = JSONReader.tape(ArraySlice(spaced.utf8)) else { continue }
            let patch = Self.object(&g, plainKeys: true)
            for overwrite in [false, true] {
                let merged = EventDataMerge.merge(to: tape.object(), from: patch, overwrite: overwrite)
                var out: [UInt8] = []
                DataOverlay(base: tape, patch: patch, overwrite: overwrite).write(to: &out)
                let comment = Comment(rawValue: "base \(spaced) patch \(Value.object(patch)) overwrite \(overwrite)")
                let back = try JSONReader.read(out).value
                // Compared as text: number kinds and both zeros count.
                #expect(JSONWriter.string(back) == JSONWriter.string(.object(merged)), comment)
                #expect(!out.contains(0x0A), comment)
                if out.contains(0x20) { verbatim += 1 }
            }
        }
        #expect(verbatim > 100)
    }

    /// Large patches are asked by key rather than compared member by member: the same bytes.
    @Test(arguments: [17, 70] as [Int])
    func largePatchesMergeAsTheReference(_ size: Int) throws {
        var base = ValueObject()
        for i in 0..<40 { base["k\(i)"] = i % 3 == 0 ? ["x": .int(Int64(i)), "gone": nil] : i % 3 == 1 ? [.int(Int64(i))] : nil }
        var patch = ValueObject()
        for i in stride(from: 0, to: 2 * size, by: 2) { patch["k\(i)"] = i % 4 == 0 ? ["y": .int(Int64(i))] : [.int(Int64(i))] }
        let tape = try #require(JSONTape.of(base))
        for overwrite in [false, true] {
            var out: [UInt8] = []
            DataOverlay(base: tape, patch: patch, overwrite: overwrite).write(to: &out)
            #expect(out == Self.compact(EventDataMerge.merge(to: base, from: patch, overwrite: overwrite)))
        }
    }

    @Test(arguments: [21, 22, 23] as [UInt64])
    func tapesWrittenCompactAreTheWritersText(_ seed: UInt64) throws {
        var g = ValueGenerator(state: seed)
        var taken = 0
        for _ in 0..<300 {
            var o = ValueObject()
            for _ in 0..<g.below(8) { o[["a", "b.c", "k", "a-key-longer-than-sixteen"][g.below(4)]] = g.value() }
            // Through text, so strings with escapes land in the arena.
            let text = JSONWriter.string(.object(o), options: .pretty)
            guard let tape = JSONReader.tape(ArraySlice(text.utf8)) else { continue }
            taken += 1
            var out: [UInt8] = []
            tape.writeCompact(to: &out)
            #expect(out == Self.compact(tape.object()), "\(text)")
        }
        #expect(taken > 100)
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the json-schema-test-suite corpus is not run"))
    func theJSONSchemaCorpusObjectsAreWrittenAsTheWriterWritesThem() throws {
        guard let folder = SharedCorpus.folder("corpora/json-schema-test-suite/tests/draft7") else {
            Issue.record("../shared is here but corpora/json-schema-test-suite/tests/draft7 is not")
            return
        }
        var taken = 0
        for f in try FileManager.default.contentsOfDirectory(atPath: folder.path) where f.hasSuffix(".json") {
            guard let bytes = SharedCorpus.bytes(folder.appendingPathComponent(f)) else { continue }
            for group in try JSONReader.read(bytes).value.arrayValue ?? [] {
                for test in group["tests"]?.arrayValue ?? [] {
                    guard case .object = test["data"], let text = test["data"].map({ JSONWriter.string($0) }),
                        let tape = JSONReader.tape(ArraySlice(text.utf8))
                    else { continue }
                    taken += 1
                    var out: [UInt8] = []
                    tape.writeCompact(to: &out)
                    #expect(out == Array(text.utf8), "\(f): \(text)")
                    // Merged with nothing: the merge's cleaning alone.
                    var cleaned: [UInt8] = []
                    DataOverlay(base: tape, patch: [:], overwrite: false).write(to: &cleaned)
                    #expect(cleaned == Self.compact(EventDataMerge.merge(to: tape.object(), from: [:], overwrite: false)), "\(f)")
                }
            }
        }
        #expect(taken > 50)
    }

    @Test func eventsMergeOverTheirTapeAndNothingElse() throws {
        let line = Array(#"{"type":"t","data":{"a":{"b":1,"gone":null},"list":[1]}}"#.utf8)
        let tape = try #require(try JSONReader.read(line[...], file: "t", tapeOf: "data").tape)
        var e = Event(name: "e", type: "t", source: "s")
        e.setDocument(tape)
        let patch: ValueObject = ["a": ["c": 2], "list": [2], "new": "x"]
        let merged = e.merging(patch, overwrite: false)
        // The tape stays, under the overlay; the data is the reference's merge.
        #expect(merged.overlay?.base === tape && merged.document == nil && merged.dataText == nil)
        #expect(merged.data == EventDataMerge.merge(to: tape.object(), from: patch, overwrite: false))
        #expect(merged.data == ["a": ["b": 1, "c": 2], "list": [1, 2], "new": "x"])
        #expect(merged.id == e.id && e.document === tape && e.overlay == nil)
        // A second merge is made on the tree, as the reference makes it, unless it only adds new members.
        let twice = merged.merging(["a": ["b": 5]], overwrite: true)
        #expect(twice.overlay == nil && twice.data?["a"] == ["b": 5, "c": 2])
        let added = merged.merging(["more": 1], overwrite: false)
        #expect(added.overlay?.base === tape && added.data == ["a": ["b": 1, "c": 2], "list": [1, 2], "new": "x", "more": 1])
        // Data made in code merges as a tree; an event without data stays as it is.
        let plain = Event(name: "e", type: "t", source: "s", data: ["k": nil, "m": 1])
        #expect(plain.merging(["z": true], overwrite: false).data == ["m": 1, "z": true])
        let empty = Event(name: "e", type: "t", source: "s")
        #expect(empty.merging(["z": true], overwrite: false).data == nil)
        // Setting data drops the overlay.
        var changed = merged
        changed.data = ["only": 1]
        #expect(changed.overlay == nil && changed.data == ["only": 1])
    }

    /// Two merges in turn against the reference: whenever `adding` joins them into one overlay, its object
    /// and its text are the reference's second merge of the first.
    @Test(arguments: [41, 42, 43, 44] as [UInt64])
    func addingIsTheSecondMergeOfTheFirst(_ seed: UInt64) throws {
        var g = ValueGenerator(state: seed)
        var joined = 0
        for round in 0..<400 {
            let base = Self.object(&g, plainKeys: round % 4 != 0)
            guard let tape = JSONTape.of(base) else { continue }
            let first = Self.object(&g, plainKeys: round % 3 != 0)
            // Often new keys only; sometimes the shared pool (names the data or the first patch uses).
            var second = round % 2 == 0 ? ValueObject() : Self.object(&g, plainKeys: round % 5 != 0)
            if round % 2 == 0 {
                for k in 0..<g.below(3) { second["new\(k)"] = Self.value(&g, plainKeys: true) }
            }
            for (o1, o2) in [(false, false), (true, true), (false, true)] {
                let overlay = DataOverlay(base: tape, patch: first, overwrite: o1)
                let reference = EventDataMerge.merge(to: overlay.object(), from: second, overwrite: o2)
                guard let both = overlay.adding(second, overwrite: o2) else { continue }
                joined += 1
                let comment = Comment(
                    rawValue: "base \(Value.object(base)) first \(Value.object(first)) second \(Value.object(second)) \(o1) \(o2)")
                #expect(both.object() == reference, comment)
                var out: [UInt8] = []
                both.write(to: &out)
                #expect(out == Self.compact(reference), comment)
            }
        }
        #expect(joined > 200)
    }

    /// Threads asking for an overlay's object at once all get the one object (ThreadSanitizer runs this).
    @Test func theMergedObjectIsMadeOnceWhenManyThreadsAsk() throws {
        let tape = try #require(JSONTape.of(["a": 1, "b": ["c": nil]]))
        for round in 0..<20 {
            let overlay = DataOverlay(base: tape, patch: ["r": .int(Int64(round))], overwrite: false)
            let addresses = JSONTapeTests.addressesSeenAtOnce { overlay.object() }
            #expect(addresses.count == 8 && Set(addresses).count == 1)
            #expect(overlay.object() == ["a": 1, "b": [:], "r": .int(Int64(round))])
        }
    }
}
