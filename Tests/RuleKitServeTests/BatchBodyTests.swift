import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitServe

/// `BatchBody`: the three body forms read the same events, each as a JSON line is read (data into a tape,
/// its text kept), with the line each starts on; what the scanner does not take is read whole for its
/// located error.
@Suite struct BatchBodyTests {
    static let events = [
        #"{"id":"a","name":"n","type":"t","source":"s","data":{"x":[1,"]",{"y":"}\"{"}],"z":2.50}}"#,
        #"{"type":"t","source":"s","data":{"k":"\u00e9"}}"#,
        #"{"type":"t","source":"s"}"#,
        #"{"type":"t","source":"s","data":"not an object"}"#,
    ]

    static func parse(_ text: String, envelope: Bool = true, max: Int = 100) throws(BatchBody.Problem) -> BatchBody {
        try BatchBody.parse(Array(text.utf8), maxDocuments: max, limits: .default, envelope: envelope)
    }

    /// Each document as the reader reads it alone: value, data text, whether a tape was made.
    static func shape(_ b: BatchBody) -> [String] {
        b.documents.indices.map { i in
            let text = i < b.dataTexts.count ? b.dataTexts[i].map { String(decoding: $0, as: UTF8.self) } ?? "-" : "-"
            let tape = i < b.dataTapes.count ? (b.dataTapes[i].map { JSONWriter.string(.object($0.object())) } ?? "-") : "-"
            return "\(JSONWriter.string(b.documents[i].value)) | \(text) | \(tape)"
        }
    }

    @Test func everyFormReadsTheSameEvents() throws {
        let lines = try Self.parse(Self.events.joined(separator: "\n"))
        let array = try Self.parse("[" + Self.events.joined(separator: ",\n ") + "]")
        let envelope = try Self.parse(#"{"states":{"a":{"b":1}},"events":[ "# + Self.events.joined(separator: " , ") + "]}")
        #expect(lines.documents.count == 4)
        #expect(Self.shape(array) == Self.shape(lines))
        #expect(Self.shape(envelope) == Self.shape(lines))
        #expect(envelope.states["a"] == ["b": 1])
        // The data of the first event read into a tape (its text kept there, not beside it).
        #expect(lines.dataTapes[0].map { JSONWriter.string(.object($0.object())) } == #"{"x":[1,"]",{"y":"}\"{"}],"z":2.5}"#)
        #expect(lines.dataTexts[0] == nil)
        // Lines: where each event starts.
        #expect(lines.documents.map(\.line) == [1, 2, 3, 4])
        #expect(array.documents.map(\.line) == [1, 2, 3, 4])
    }

    @Test func aSingleObjectIsOneEventAndWhitespaceIsNone() throws {
        #expect(try Self.parse("  \n ").documents.isEmpty)
        let one = try Self.parse("\n  " + Self.events[0] + "  \n")
        #expect(one.documents.count == 1 && one.documents[0].line == 2)
        #expect(try Self.parse("[]").documents.isEmpty)
        #expect(try Self.parse(#"{"events":[]}"#).documents.isEmpty)
    }

    @Test func mistakesAreLocated() {
        func problem(_ text: String) -> BatchBody.Problem? {
            do {
                _ = try Self.parse(text)
                return nil
            } catch { return error }
        }
        // A broken element: its line.
        let broken = problem("[\n" + Self.events[0] + ",\n{\"type\": }\n]")
        #expect(broken?.line == 3)
        // A broken line of JSON lines.
        #expect(problem(Self.events[0] + "\n{oops\n")?.line == 2)
        // Unterminated: read whole, the reader's error.
        #expect(problem("[" + Self.events[0])?.message.isEmpty == false)
        #expect(problem(#"{"events":{}}"#)?.message == "'events' must be an array")
        #expect(problem(#"{"events":[],"extra":1}"#)?.message.contains("unknown key 'extra'") == true)
        #expect(problem(#"{"events":[],"states":[]}"#)?.message.contains("'states' must be an object") == true)
        // Too many: nothing is read.
        #expect(problem("[" + Array(repeating: Self.events[2], count: 3).joined(separator: ",") + "]").map { _ in true } == nil)
        do {
            _ = try Self.parse("[" + Array(repeating: Self.events[2], count: 3).joined(separator: ",") + "]", max: 2)
            Issue.record("three documents passed a limit of two")
        } catch {
            #expect(error.message.hasPrefix("more than 2"))
        }
    }

    @Test func theScannerFindsWhatTheReaderReads() {
        // Generated arrays of nested values and tricky strings: the scanner's elements, each read alone,
        // equal the reader's array.
        var rng = SeededGenerator(state: 21)
        let atoms = [#""a,b""#, #""]}""#, #""\"""#, #""\\""#, "1", "-2.5e3", "true", "null", "{}", "[]", #"{"k":[1,{"q":"]"}]}"#]
        for _ in 0..<300 {
            let n = rng.int(6)
            let parts = (0..<n).map { _ in atoms[rng.int(atoms.count)] }
            let text = Array(("[ " + parts.joined(separator: " ,\n") + " ]").utf8)
            guard let (ranges, end) = BodyScanner.elements(text, from: 0) else {
                Issue.record("not scanned: \(String(decoding: text, as: UTF8.self))")
                continue
            }
            #expect(end == text.count)
            let scanned = ranges.compactMap { try? JSONReader.read(Array(text[$0])).value }
            #expect(Value.array(scanned) == (try? JSONReader.read(text).value))
        }
    }

    /// An array of events read in place (`addElements`, each event from where the one before ended)
    /// against the plain path: the scanner's ranges, each event read alone. Generated arrays of events with
    /// nested data, tricky strings, repeated keys, escaped and non-ASCII keys, data that is not an object,
    /// and line breaks between and inside events: the same documents, data texts, tapes and lines; an
    /// array the in-place reading does not take is the scanner's to answer.
    @Test func eventsReadInPlaceEqualEventsReadOneByOne() throws {
        var rng = SeededGenerator(state: 40)
        let datas = [
            #"{"x":[1,"]",{"y":"}\"{"}],"z":2.50}"#, #"{"k":"\u00e9"}"#, #"{"a":1,"a":2}"#, #"{"\u0061":1}"#, #"{"é":{"b":[]}}"#,
            "{\n \"m\": [true, null,\n -0.0]\n}", #""not an object""#, "[]", "{}",
        ]
        var tookSome = false
        for _ in 0..<400 {
            let n = rng.int(7)
            let parts: [String] = (0..<n).map { _ in
                switch rng.int(12) {
                case 0: return "5"
                case 1: return #"{"type":"t","source":"s""#  // broken: no closing brace
                case 2: return #"{"type":"t","type":"u","source":"s"}"#
                default:
                    let data = rng.int(5) == 0 ? "" : #","data":"# + datas[rng.int(datas.count)]
                    return #"{"type":"t","source":"s""# + data + "}"
                }
            }
            let text = Array(("[ " + parts.joined(separator: rng.int(2) == 0 ? " ,\n" : ",") + "\n]").utf8)
            var inPlace = BatchBody.DocumentReader(bytes: text, limits: .default, events: true)
            guard let end = inPlace.addElements(from: 0, maxDocuments: 100) else { continue }
            tookSome = true
            #expect(end == text.count)
            guard let (ranges, _) = BodyScanner.elements(text, from: 0) else {
                Issue.record("read in place, not scanned: \(String(decoding: text, as: UTF8.self))")
                continue
            }
            var plain = BatchBody.DocumentReader(bytes: text, limits: .default, events: true)
            do {
                for r in ranges { try plain.add(r) }
            } catch {
                Issue.record("read in place, refused one by one: \(String(decoding: text, as: UTF8.self))")
                continue
            }
            #expect(Self.shape(inPlace.body) == Self.shape(plain.body), "\(String(decoding: text, as: UTF8.self))")
            #expect(inPlace.body.documents.map(\.line) == plain.body.documents.map(\.line))
            // The same events in an envelope, its states before or after them.
            let array = String(decoding: text, as: UTF8.self)
            for wrapped in [#"{"states":{"a":{"b":1}},"events":"# + array + "}", #"{"events":"# + array + #","xdmStates":{}}"#] {
                guard let body = try? Self.parse(wrapped) else {
                    Issue.record("an envelope refused: \(wrapped)")
                    continue
                }
                #expect(Self.shape(body) == Self.shape(plain.body), "\(wrapped)")
                #expect(body.documents.map(\.line) == plain.body.documents.map(\.line))
            }
        }
        #expect(tookSome)
        // `events` twice (the last is read, as the reader keeps a later duplicate), or spelled with an
        // escape: the scanner's path.
        let one = Self.events[0]
        let two = Self.events[2]
        #expect(try Self.shape(Self.parse(#"{"events":["# + one + #"],"events":["# + two + "]}")) == Self.shape(Self.parse(two)))
        #expect(try Self.shape(Self.parse(#"{"ev\u0065nts":["# + one + "]}")) == Self.shape(Self.parse(one)))
        #expect(throws: BatchBody.Problem.self) { try Self.parse(#"{"events":["# + one + #"],"other":1}"#) }
        // Past the limit, and a document over the size limit: not taken in place (the plain path says why).
        var few = BatchBody.DocumentReader(bytes: Array("[{},{},{}]".utf8), limits: .default, events: true)
        #expect(few.addElements(from: 0, maxDocuments: 2) == nil)
        var small = ReaderLimits.default
        small.maxDocumentBytes = 20
        var big = BatchBody.DocumentReader(bytes: Array(#"[{"type":"t","source":"s","data":{"a":1}}]"#.utf8), limits: small, events: true)
        #expect(big.addElements(from: 0, maxDocuments: 10) == nil)
    }
}
