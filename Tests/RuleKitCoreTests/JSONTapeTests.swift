import Foundation
import RuleKitTestSupport
import Testing

@testable import RuleKitCore

/// The tape against the plain reader: reading a member into a tape must stand for exactly the value
/// `JSONReader` reads from the same text, leave the rest of the line as it was, and fail as it fails.
@Suite struct JSONTapeTests {
    /// The same value, key order and number kinds included.
    static func same(_ a: Value?, _ b: Value?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a == b && JSONWriter.string(a) == JSONWriter.string(b)
    }

    /// Reads `line` with and without a tape of `data`, and checks they agree; returns the tape.
    @discardableResult
    static func agree(_ line: String, _ comment: Comment? = nil) throws -> JSONTape? {
        let bytes = Array(line.utf8)
        let plain = try JSONReader.read(bytes).value
        let r = try JSONReader.read(bytes[...], file: "t", tapeOf: "data")
        guard let tape = r.tape else {
            #expect(same(r.value, plain), comment)
            return nil
        }
        #expect(same(.object(tape.object()), plain["data"]), comment)
        var rest = try #require(plain.objectValue)
        rest["data"] = nil
        #expect(same(r.value, .object(rest)), comment)
        // The text is the member's, byte for byte, and reads back as it.
        #expect(same(try JSONReader.read(Array(tape.text)).value, plain["data"]), comment)
        #expect(line.utf8.count >= tape.text.count)
        // A fresh object and the cached one are the same.
        #expect(same(.object(tape.materialize()), .object(tape.object())), comment)
        return tape
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func tapesOfGeneratedObjectsWithPlainKeys(_ seed: UInt64) throws {
        var g = ValueGenerator(state: seed)
        let keys = ["a", "b.c", "k1", "a-key-longer-than-fifteen-bytes", "", "x", "abcdefgh.ij", "long.key.with.dots.past.eight"]
        var taken = 0
        for _ in 0..<200 {
            var o = ValueObject()
            for _ in 0..<g.below(8) { o[keys[g.below(keys.count)]] = g.value() }
            // Plain keys in nested objects too, most of the time.
            if g.below(2) == 0 { o["nested"] = ["k1": g.value(), "list": [g.value(), ["a": g.value()]]] }
            for options in [JSONWriter.Options.compact, .pretty] {
                let text = JSONWriter.string(.object(o), options: options)
                if try Self.agree(#"{"name": "e", "data": "# + text + #", "z": [1]}"#, "\(text)") != nil { taken += 1 }
            }
        }
        // Generated keys of nested objects may hold escapes or non-ASCII text: those lines are read as a
        // `Value`. Most must still be taken, or this test tests nothing.
        #expect(taken > 100)
    }

    /// The tapes of a block's lines share chunks of node memory: each is still exactly its line's data
    /// (a line larger than a chunk, one that outgrows its estimate mid-tape, one the tape gives up on
    /// half-way), side by side with its neighbours, and alive after the block and its other tapes are gone.
    @Test func tapesInSharedChunksAreTheirLinesData() throws {
        var g = ValueGenerator(state: 7)
        var lines: [String] = []
        for i in 0..<300 {
            var o = ValueObject()
            for k in 0..<g.below(6) { o["k\(k)"] = g.value() }
            switch i {
            // More nodes than a chunk holds, and far more than one per ten bytes: the tape moves to a
            // fresh chunk while it is read.
            case 100: o["many"] = .array(Array(repeating: 1, count: 40_000))
            // A repeated key after thousands of nodes: the tape gives up, the line is read as a value.
            case 200: lines.append(#"{"data":{"a":["# + Array(repeating: "2", count: 5_000).joined(separator: ",") + #"],"a":3}}"#)
            default: break
            }
            lines.append(#"{"type":"t","data":"# + JSONWriter.string(.object(o)) + "}")
        }
        let path = Scratch.url("chunks-\(UUID()).jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        var kept: [(JSONTape, Value?)] = []
        var taped = 0
        var pairs = 0
        var adjacent = 0
        try JSONLinesPipeline.run(
            try JSONLinesReader(path: path), blockSize: 128, workers: 0, makeTransform: { { $0 } },
            consume: { block in
                let records = block.records(tapeOf: "data")
                var previous: (base: UInt, count: Int)?
                for r in records {
                    let line = lines[r.line - 1]
                    let plain = try JSONReader.read(Array(line.utf8)).value["data"]
                    guard let tape = r.tape else {
                        #expect(Self.same(try r.value.get()["data"], plain), "line \(r.line)")
                        previous = nil
                        continue
                    }
                    taped += 1
                    #expect(Self.same(.object(tape.materialize()), plain), "line \(r.line)")
                    let here = tape.withUnsafeView { (UInt(bitPattern: $0.nodes.baseAddress), $0.nodes.count) }
                    if let p = previous {
                        pairs += 1
                        if p.base + UInt(p.count * MemoryLayout<JSONTape.Node>.stride) == here.0 { adjacent += 1 }
                    }
                    previous = here
                    if r.line % 37 == 0 || r.line == 101 { kept.append((tape, plain)) }
                }
                return nil
            })
        try? FileManager.default.removeItem(atPath: path)
        // Generated keys may hold escapes or non-ASCII text (those lines are read as values): most are taped.
        #expect(taped > lines.count / 2)
        // A tape follows the one before it in the same chunk, but where a block or a chunk starts.
        #expect(pairs > lines.count / 3 && adjacent >= pairs - 10, "\(adjacent) of \(pairs)")
        for (tape, plain) in kept { #expect(Self.same(.object(tape.materialize()), plain)) }
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func generatedValuesOfAnyKindAgree(_ seed: UInt64) throws {
        var g = ValueGenerator(state: seed)
        for _ in 0..<300 {
            let v = g.value()
            try Self.agree(#"{"data":"# + JSONWriter.string(v) + "}")
        }
    }

    @Test func whatTheTapeLeavesToTheValueReader() throws {
        // Repeated keys, keys with escapes, non-ASCII keys (the Kelvin sign equals K), and data that is not
        // an object: read as a `Value`, exactly as without a tape.
        for line in [
            #"{"data":{"a":1,"a":2}}"#, #"{"data":{"o":{"k":1,"k":[2]}}}"#, #"{"data":{"a\u0062":1}}"#,
            #"{"data":{"é":1}}"#, #"{"data":{"K":1,"K":2}}"#, #"{"data":[1,2]}"#, #"{"data":"text"}"#,
            #"{"data":null}"#, #"{"other":{"a":1}}"#,
            // A repeat after members whose values are containers (the check steps over their subtrees).
            #"{"data":{"a":{"b":1,"c":[1,{"a":2}]},"d":[],"e":{},"a":3}}"#,
        ] {
            #expect(try Self.agree(line, "\(line)") == nil, "\(line)")
        }
        // The same name in different objects is no repeat; nor are many distinct keys (whose hash bits
        // collide, so the earlier keys are compared).
        let distinct = (0..<200).map { "\"k\($0)\":{\"k\($0)\":[{\"k0\":1}]}" }.joined(separator: ",")
        for line in [#"{"data":{"a":{"a":1},"b":{"a":{"a":2}},"c":[{"a":1,"b":2}]}}"#, #"{"data":{"# + distinct + "}}"] {
            #expect(try Self.agree(line, "\(line)") != nil, "\(line)")
        }
        #expect(try Self.agree(#"{"data":{"# + distinct + #","k150":0}}"#) == nil)
        // Escaped and non-ASCII string values are taken (decoded into the tape's arena).
        let tape = try #require(try Self.agree(#"{"data":{"s":"a\"b\u00e9\n","t":"été","u":"\ud83d\ude00"}}"#))
        #expect(tape.object()["s"] == "a\"bé\n")
        #expect(tape.object()["u"] == "😀")
        // The last of repeated top-level members is the one kept.
        let last = try #require(try Self.agree(#"{"data":{"a":1},"data":{"b":2}}"#))
        #expect(last.object() == ["b": 2])
        #expect(try Self.agree(#"{"data":{"a":1},"data":5}"#) == nil)
        #expect(try Self.agree(#"{"data":5,"data":{"a":1}}"#) != nil)
    }

    /// The dotted-key flag an object's node carries is exact: the engine's walk trusts "no dotted key".
    @Test func dottedKeysAreNotedWhereverTheDotIs() throws {
        var keys = ["", ".", "a.", ".a", "abcdefg.", "abcdefgh.", "abcdefgh.ij", "abcdefghijklmnop", "abcdefghijklmno."]
        for n in 0..<20 { keys.append(String(repeating: "k", count: n) + "." + String(repeating: "v", count: 19 - n)) }
        keys += keys.map { $0.replacingOccurrences(of: ".", with: "_") }
        for key in keys {
            // A value with dots right after the key: they are not the key's.
            let line = Array(#"{"data":{"\#(key)":"...","z":"."}}"#.utf8)
            let tape = try #require(try JSONReader.read(line[...], file: "t", tapeOf: "data").tape, "\(key)")
            #expect(tape.withUnsafeView { ($0.nodes[0].flags & JSONTape.Node.dottedFlag != 0) } == key.contains("."), "\(key)")
        }
    }

    @Test func errorsAreTheReadersOwn() {
        for line in [
            #"{"data":{"a":1,}}"#, #"{"data":{"a":01}}"#, #"{"data":{"a":"\x"}}"#, #"{"data":{"a":tru}}"#,
            #"{"data":{"a":[1,]}}"#, #"{"data":{"a":"\ud800"}}"#, "{\"data\":{\"a\":\"\u{1}\"}}", #"{"data":{"a":1}"#,
            #"{"data":{"a":1e999}}"#, #"{"data":{"a" 1}}"#, "{\"data\":{\"a\":\"\u{FF}\"}}",
        ] {
            // The last case with a byte that is not UTF-8 (0xFF) in place of ÿ's encoding.
            var bytes = Array(line.utf8)
            if line.contains("\u{FF}") { bytes = Array(#"{"data":{"a":""#.utf8) + [0xFF] + Array(#""}}"#.utf8) }
            var plain: String?
            var taped: String?
            do { _ = try JSONReader.read(bytes) } catch { plain = error.description }
            do { _ = try JSONReader.read(bytes[...], file: "<input>", tapeOf: "data") } catch { taped = error.description }
            #expect(plain != nil, "\(line)")
            #expect(plain == taped, "\(line)")
        }
    }

    @Test func limitsAreTheReadersOwn() throws {
        let limits = ReaderLimits(maxDepth: 4, maxNodes: 50)
        let deep = Array(#"{"data":{"a":{"b":{"c":{"d":1}}}}}"#.utf8)
        #expect(throws: DiagnosticError.self) { try JSONReader.read(deep[...], file: "t", limits: limits, tapeOf: "data") }
        let many = Array(("{\"data\":{\"a\":[" + (0..<60).map(String.init).joined(separator: ",") + "]}}").utf8)
        #expect(throws: DiagnosticError.self) { try JSONReader.read(many[...], file: "t", limits: limits, tapeOf: "data") }
        let fits = Array(#"{"data":{"a":{"b":1}}}"#.utf8)
        #expect(try JSONReader.read(fits[...], file: "t", limits: limits, tapeOf: "data").tape != nil)
    }

    @Test(.enabled(if: SharedCorpus.isPresent, "../shared is absent: the json-schema-test-suite corpus is not run"))
    func theJSONSchemaCorpusObjectsAgree() throws {
        guard let folder = SharedCorpus.folder("corpora/json-schema-test-suite/tests/draft7") else {
            Issue.record("../shared is here but corpora/json-schema-test-suite/tests/draft7 is not")
            return
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        var taken = 0
        for f in files {
            guard let bytes = SharedCorpus.bytes(folder.appendingPathComponent(f)) else { continue }
            for group in try JSONReader.read(bytes).value.arrayValue ?? [] {
                for test in group["tests"]?.arrayValue ?? [] {
                    guard let data = test["data"] else { continue }
                    if try Self.agree(#"{"data":"# + JSONWriter.string(data) + "}", "\(f)") != nil { taken += 1 }
                    _ = try Self.agree(#"{"data": "# + JSONWriter.string(data, options: .pretty) + "}", "\(f)")
                }
            }
        }
        #expect(taken > 100)
    }

    /// The storage address of the object each of 8 threads got from `make`, called by all at once.
    static func addressesSeenAtOnce(_ make: @escaping @Sendable () -> ValueObject) -> [UInt] {
        let seen = Locked<[UInt]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let o = make()
            seen.withLock { $0.append(o.storageAddress.map { UInt(bitPattern: $0) } ?? 0) }
        }
        return seen.withLock { $0 }
    }

    /// Threads asking for the object of one tape at once all get the one object, made once (the cache is
    /// an atomic; ThreadSanitizer runs this in CI).
    @Test func theObjectIsMadeOnceWhenManyThreadsAsk() throws {
        for round in 0..<20 {
            let line = Array(#"{"data":{"a":[1,2,{"b":"c"}],"round":\#(round)}}"#.utf8)
            let tape = try #require(try JSONReader.read(line[...], file: "t", tapeOf: "data").tape)
            let addresses = Self.addressesSeenAtOnce { tape.object() }
            #expect(addresses.count == 8 && Set(addresses).count == 1)
            #expect(tape.object()["round"] == .int(Int64(round)))
        }
    }

    /// A member found by its hash, in the member nodes or (past `indexedMembers`) in the object's sorted
    /// index, is the member a plain walk of the keys' bytes finds; absent keys are absent.
    @Test(arguments: [0, 1, 47, 48, 49, 60, 500])
    func membersAreFoundByHashAndIndexAsByAPlainWalk(_ count: Int) throws {
        var o = ValueObject()
        // Keys of one length, so that length never decides; a nested large object too, whose keys all have
        // one hash (it reads a key's length and first and last eight bytes).
        for i in 0..<count { o[String(format: "k%05d", i)] = .int(Int64(i)) }
        var inner = ValueObject()
        for i in 0..<count { inner[String(format: "nnnnnnnn%05dnnnnnnnn", i)] = [.int(Int64(i))] }
        o["inner"] = .object(inner)
        let tape = try #require(JSONTape.of(o))
        #expect(tape.object() == o)
        tape.withUnsafeView { view in
            /// The plain reference: every member's key compared byte by byte.
            func walk(_ object: Int, _ key: [UInt8]) -> Int? {
                var i = object + 1
                for _ in 0..<view.nodes[object].count {
                    if Array(view.bytes(i)) == key { return i + 1 }
                    i = view.next(i + 1)
                }
                return nil
            }
            let innerNode = walk(0, Array("inner".utf8))
            #expect(innerNode != nil)
            for (object, format) in [(0, "k%05d"), (innerNode ?? 0, "nnnnnnnn%05dnnnnnnnn")] {
                for i in stride(from: -1, through: count + 1, by: 1) {
                    let key = Array(String(format: format, i).utf8)
                    let found = key.withUnsafeBufferPointer { view.member(of: object, key: $0) }
                    #expect(found == walk(object, key), "\(format) \(i) of \(count)")
                    if let found { #expect(view.value(at: found) == (object == 0 ? .int(Int64(i)) : [.int(Int64(i))])) }
                }
            }
            // The root has `count + 1` members, the inner object `count`: each is indexed past the threshold.
            let n = JSONTape.indexedMembers
            #expect(view.index.count == (count + 1 > n ? count + 1 : 0) + (count > n ? count : 0))
        }
    }

    /// A key repeated in a large object is found when the object closes (the tape refuses it, and the
    /// line is read as a `Value` whose last value wins), wherever the twins are and whatever their hash.
    @Test(arguments: [(30, 0, 29), (30, 28, 29), (60, 0, 59), (60, 58, 59), (300, 5, 250), (300, 299, 0)])
    func repeatedKeysOfLargeObjectsAreFound(_ count: Int, _ first: Int, _ second: Int) throws {
        for format in ["k%05d", "same-head%05dsame-tail"] {
            var members: [String] = (0..<count).map { "\"\(String(format: format, $0))\":\($0)" }
            members[second] = "\"\(String(format: format, first))\":\"twin\""
            let line = #"{"data":{"# + members.joined(separator: ",") + "}}"
            let r = try JSONReader.read(Array(line.utf8)[...], file: "t", tapeOf: "data")
            #expect(r.tape == nil, "\(format) \(first) \(second)")
            #expect(r.value["data"]?[String(format: format, first)] == (second > first ? "twin" : .int(Int64(first))))
            try Self.agree(line)
        }
    }

    @Test func tapesOfObjectsMadeInCode() throws {
        let o: ValueObject = ["a": [1, 2.5, "x"], "b.c": ["d": nil]]
        #expect(try #require(JSONTape.of(o)).object() == o)
        #expect(JSONTape.of(["é": 1]) == nil)
        #expect(JSONTape.of([:])?.object() == [:])
    }

    @Test func eventsKeepTheirTapeUntilTheDataChanges() throws {
        let line = Array(#"{"name":"n","data":{"a":{"b":[1,"x"]},"c.d":true}}"#.utf8)
        let tape = try #require(try JSONReader.read(line[...], file: "t", tapeOf: "data").tape)
        var e = Event(name: "e", type: "t", source: "s")
        e.setDocument(tape)
        #expect(e.document === tape)
        #expect(e.dataText == Array(tape.text))
        // The one form the data is kept in, lent as is: the tape itself, not a copy of its text or a tree.
        #expect(e.withDataView { if case .tape(let t) = $0 { t === tape } else { false } })
        #expect(e.data == ["a": ["b": [1, "x"]], "c.d": true])
        var copy = e
        copy.number = 7
        #expect(copy.document === tape && copy.sharesData(with: e) && copy == e)
        let plain = Event(id: e.id, name: "e", type: "t", source: "s", data: e.data, timestamp: e.timestamp)
        #expect(plain == e && !plain.sharesData(with: e))
        copy.data?["z"] = 1
        #expect(copy.document == nil && copy.dataText == nil && copy != e)
        #expect(e.document === tape)
    }

    @Test func aTapesTextIsTheSliceItWasReadFrom() throws {
        // A line of a larger buffer, as a JSON-lines block lends it: the tape's text is those bytes, in that
        // buffer (no copy), through both readers (the envelope's and the general one).
        let lines = [#"{"type":"t","data":{"a":1,"b":"x"}}"#, #"{"data":{"a":[1,2]},"n":1}"#, #"{"a":true}"#]
        var buffer = Array("  \n".utf8)
        var ranges: [Range<Int>] = []
        for l in lines {
            ranges.append(buffer.count..<(buffer.count + l.utf8.count))
            buffer += Array(l.utf8) + [0x0A]
        }
        let base = buffer.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        for (l, r) in zip(lines, ranges) {
            let slice = buffer[r]
            let tape = try #require(
                l.hasPrefix(#"{"a""#) ? JSONReader.tape(slice) : try JSONReader.read(slice, file: "t", tapeOf: "data").tape, "\(l)")
            let start = tape.text.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            let offset = Int(start - base)
            #expect(offset >= r.lowerBound && offset + tape.text.count <= r.upperBound, "\(l)")
            #expect(Array(buffer[offset..<(offset + tape.text.count)]) == Array(tape.text), "\(l)")
        }
        // The buffer changed afterwards: the tape keeps the bytes it was read from.
        let tape = try #require(JSONReader.tape(buffer[ranges[2]]))
        for i in buffer.indices { buffer[i] = 0x20 }
        #expect(String(decoding: tape.text, as: UTF8.self) == #"{"a":true}"#)
        #expect(tape.object() == ["a": true])
    }

    /// Whether the envelope fast path (`JSONParser.envelope`) takes `line`.
    static func takenFast(_ line: String) -> Bool {
        let bytes = Array(line.utf8)
        return bytes.withUnsafeBufferPointer { b in
            var p = JSONParser(buf: b, file: "t", limits: .default, keepMap: false, lineOffset: 0)
            p.skipWhitespace()
            return p.envelope(member: "data") != nil
        }
    }

    /// The usual event line (string members and a `data` object) is read by the fast path, anything else
    /// by the general reader, and both read what the plain reader reads (or fail as it fails).
    @Test func envelopesAgreeWithThePlainReader() throws {
        let taken = [
            #"{"type":"t","source":"s","data":{"k":1}}"#,
            #"  { "name" : "n" , "data" : { "a" : [1, {"b": null}] } , "type": "t" }  "#,
            #"{"data":{},"name":""}"#,
            #"{"name":"caf\#u{E9}","a.b":"dotted","data":{"x":"y"}}"#,
            #"{"data":{"k":"v"}}"#,
        ]
        let general = [
            #"{"name":"e\"scaped","data":{"k":1}}"#,  // an escape in a string member
            #"{"name":"n","n":1,"data":{"k":1}}"#,  // a member that is no string
            #"{"name":"n","data":[1]}"#,  // data that is no object
            #"{"name":"n"}"#,  // no data
            #"{"name":"a","name":"b","data":{}}"#,  // a repeated key
            #"{"data":{},"data":{"k":1}}"#,  // data twice
            #"{"n\u0061me":"a","data":{}}"#,  // an escaped key
            #"{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6","g":"7","h":"8","data":{}}"#,  // many members
            #"{"data":{"k":"v","k":"w"}}"#,  // a key repeated inside data
            #"{"name":"n","data":{}}x"#,  // text after the object
            #"{"name":"n","data":{},}"#,  // a trailing comma
            #"{"name":"n" "data":{}}"#,  // no comma
            #"{"name":"tab\#tin","data":{}}"#,  // a control character
            #"{}"#,
            #"["data"]"#,
        ]
        for line in taken {
            #expect(Self.takenFast(line), "\(line)")
            #expect(try Self.agree(line, "\(line)") != nil, "\(line)")
        }
        for line in general {
            #expect(!Self.takenFast(line), "\(line)")
            var plain: String?
            var taped: String?
            do { _ = try JSONReader.read(Array(line.utf8)) } catch { plain = error.description }
            do { _ = try JSONReader.read(Array(line.utf8)[...], file: "<input>", tapeOf: "data") } catch { taped = error.description }
            #expect(plain == taped, "\(line)")
            if plain == nil { try Self.agree(line, "\(line)") }
        }
        // Text that is not UTF-8 in a string member: the general reader's error.
        let bad: [UInt8] = Array(#"{"name":""#.utf8) + [0xC3, 0x28] + Array(#"","data":{}}"#.utf8)
        var plain: String?
        var taped: String?
        do { _ = try JSONReader.read(bad) } catch { plain = error.description }
        do { _ = try JSONReader.read(bad[...], file: "<input>", tapeOf: "data") } catch { taped = error.description }
        #expect(plain != nil && plain == taped)
    }

    /// A key's hash is the same whether the reader reads it with bytes to spare after it (one masked load)
    /// or the lookup computes it from the key alone (a loop): tags on nodes and on paths must agree.
    @Test func keyHashesAgreeWithAndWithoutBytesToSpare() {
        var g = SeededGenerator(state: 7)
        for length in 0...20 {
            for _ in 0..<50 {
                let key = (0..<length).map { _ in UInt8(truncatingIfNeeded: 0x20 + g.int(95)) }
                let padded = key + (0..<12).map { _ in UInt8(truncatingIfNeeded: g.int(256)) }
                let alone = key.withUnsafeBufferPointer { JSONParser.keyHash($0) }
                let spare = padded.withUnsafeBufferPointer { b in
                    JSONParser.keyHash(UnsafeBufferPointer(rebasing: b[0..<length]), readable: b.count)
                }
                #expect(alone == spare, "\(key)")
            }
        }
    }
}
