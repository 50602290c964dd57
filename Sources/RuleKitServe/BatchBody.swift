// What `POST /v1/events` and `POST /v1/xdm/validate` accept: JSON lines, a JSON array, or (for events) an
// object `{"events": [...], "states": {...}, "xdmStates": {...}}` that carries the device's states for the
// batch. Every problem is a located error (line and column in the body).
public import RuleKitCore

/// A request body taken apart.
public struct BatchBody: Sendable {
    /// The documents, each with the line it starts on.
    public var documents: [(line: Int, value: Value)]
    /// For an events body in JSON lines, the exact text of each document's `data` as sent (nil where
    /// there is none or a key repeats): unchanged data is answered with those bytes, as `rulekit run`
    /// writes it. Empty for other bodies.
    public var dataTexts: [[UInt8]?] = []
    /// For an events body in JSON lines, each document's `data` read into a tape where the tape takes it
    /// (an object with plain ASCII keys, none repeated): the document's value then leaves `data` out, and
    /// the event is made with the tape (`EventJSON.event(_:dataText:document:)`). Empty for other bodies.
    public var dataTapes: [JSONTape?] = []
    /// The device's shared states for this batch, by extension name.
    public var states: [String: ValueObject] = [:]
    /// The device's XDM shared states for this batch, by extension name.
    public var xdmStates: [String: ValueObject] = [:]

    /// Why a body was refused: a message and, when it has one, where.
    public struct Problem: Error, Sendable {
        /// What is wrong.
        public var message: String
        /// Where, one-based, when known.
        public var line: Int?
        /// The column, one-based, when known.
        public var column: Int?

        /// The error's JSON body.
        public var value: Value {
            var o: ValueObject = ["error": .string(message)]
            if let line { o["line"] = .int(Int64(line)) }
            if let column { o["column"] = .int(Int64(column)) }
            return .object(o)
        }

        init(_ message: String, line: Int? = nil, column: Int? = nil) {
            self.message = message
            self.line = line
            self.column = column
        }

        init(_ e: DiagnosticError) {
            let d = e.diagnostics.first
            self.init(d?.message ?? "unreadable body", line: d?.location?.line, column: d?.location?.column)
        }
    }

    /// Parses `bytes`; `maxDocuments` bounds how many documents one body may hold.
    ///
    /// Every form reads each event on its own, as a JSON line is read (its `data` into a tape, its text
    /// kept): the events of an array or of an envelope's `events` are read in place, each from where the
    /// one before ended. What that does not take is found by `BodyScanner` and read one by one, and what
    /// the scanner does not take is read whole, for the located error.
    public static func parse(_ bytes: [UInt8], maxDocuments: Int, limits: ReaderLimits, envelope: Bool) throws(Problem) -> BatchBody {
        guard let first = bytes.firstIndex(where: { !BodyScanner.isSpace($0) }) else {
            return BatchBody(documents: [])
        }
        let open = bytes[first]
        if open == UInt8(ascii: "["), envelope {
            // Events read in place, each from where the one before ended: no scan for their ends first.
            // Anything this does not take is read again by the scanner's path, which says why.
            var reader = DocumentReader(bytes: bytes, limits: limits, events: true)
            if let end = reader.addElements(from: first, maxDocuments: maxDocuments), BodyScanner.skipSpace(bytes, end) == bytes.count {
                return reader.body
            }
        }
        var reader = DocumentReader(bytes: bytes, limits: limits, events: envelope)
        if open == UInt8(ascii: "["), let (ranges, end) = BodyScanner.elements(bytes, from: first),
            BodyScanner.skipSpace(bytes, end) == bytes.count
        {
            guard ranges.count <= maxDocuments else {
                throw Problem("more than \(maxDocuments) documents in one request", line: 1, column: 1)
            }
            for r in ranges { try reader.add(r) }
            return reader.body
        }
        if open == UInt8(ascii: "{"), envelope {
            // An envelope's events read in place likewise, found by the member scan of the envelope (the
            // first member named `events`, spelled without escapes, is read; another is not taken here).
            var inPlace = DocumentReader(bytes: bytes, limits: limits, events: true)
            var read = 0
            if let (members, end, _) = BodyScanner.members(
                bytes, from: first, elementsOf: Array("events".utf8),
                readingElements: { at in
                    read += 1
                    return read == 1 ? inPlace.addElements(from: at, maxDocuments: maxDocuments) : nil
                }),
                read == 1, BodyScanner.skipSpace(bytes, end) == bytes.count,
                let keys = try? members.map({ m throws(Problem) -> String in try inPlace.string(m.key) }),
                keys.filter({ $0 == "events" }).count == 1
            {
                return try envelopeRest(&inPlace, keys: keys, members: members)
            }
        }
        if open == UInt8(ascii: "{"),
            let (members, end, scanned) = BodyScanner.members(bytes, from: first, elementsOf: Array("events".utf8)),
            BodyScanner.skipSpace(bytes, end) == bytes.count
        {
            let keys = try members.map { m throws(Problem) -> String in try reader.string(m.key) }
            guard envelope, let at = keys.firstIndex(of: "events") else {
                try reader.add(first..<end)
                return reader.body
            }
            let events = members[at].value
            // Found in the scan when the first member of that name is an array.
            guard let ranges = scanned ?? BodyScanner.elements(bytes, from: events.lowerBound)?.ranges else {
                throw Problem("'events' must be an array", line: reader.line(at: events.lowerBound), column: 1)
            }
            guard ranges.count <= maxDocuments else {
                throw Problem("more than \(maxDocuments) documents in one request", line: 1, column: 1)
            }
            for r in ranges { try reader.add(r) }
            return try envelopeRest(&reader, keys: keys, members: members)
        }
        if open == UInt8(ascii: "[") || open == UInt8(ascii: "{") {
            // One JSON text the scanner did not take (or JSON lines): read whole, for its value or its error.
            if let whole = try? JSONReader.read(bytes, file: "body", limits: limits).value {
                return try fromValue(whole, maxDocuments: maxDocuments, envelope: envelope)
            }
            if open == UInt8(ascii: "[") {
                do { _ = try JSONReader.read(bytes, file: "body", limits: limits) } catch { throw Problem(error) }
            }
        }
        var line = 1
        var start = 0
        while start <= bytes.count {
            let end = bytes.firstIndex(of: 0x0A, in: start..<bytes.count) ?? bytes.count
            if bytes[start..<end].contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) {
                guard reader.body.documents.count < maxDocuments else {
                    throw Problem("more than \(maxDocuments) documents in one request", line: line, column: 1)
                }
                try reader.add(start..<end, line: line)
            }
            line += 1
            start = end + 1
        }
        return reader.body
    }

    /// The body of an envelope whose events `reader` has read: its states, and an error for a member it
    /// does not know.
    static func envelopeRest(
        _ reader: inout DocumentReader, keys: [String], members: [(key: Range<Int>, value: Range<Int>)]
    ) throws(Problem) -> BatchBody {
        var body = reader.body
        for (k, m) in zip(keys, members) where k != "events" {
            switch k {
            case "states": body.states = try states(try reader.value(m.value), "states")
            case "xdmStates": body.xdmStates = try states(try reader.value(m.value), "xdmStates")
            default:
                throw Problem(
                    "unknown key '\(k)' (expected 'events', 'states', 'xdmStates')", line: reader.line(at: m.key.lowerBound), column: 1)
            }
        }
        return body
    }

    /// Reads the documents of one body, each on its own, sharing the strings and tape memory of the
    /// body's events (as `rulekit run` reads the lines of a block).
    struct DocumentReader {
        let bytes: [UInt8]
        let limits: ReaderLimits
        /// Events (their `data` read into tapes) rather than plain payloads.
        let events: Bool
        var body = BatchBody(documents: [])
        private var interner: StringInterner? = nil
        private var chunk: TapeNodeChunk? = nil
        private var counted = 0
        private var lines = 1

        init(bytes: [UInt8], limits: ReaderLimits, events: Bool) {
            self.bytes = bytes
            self.limits = limits
            self.events = events
        }

        /// The line `offset` is on (offsets asked in increasing order are counted once, a line break at a
        /// time).
        mutating func line(at offset: Int) -> Int {
            if offset < counted {
                counted = 0
                lines = 1
            }
            let end = min(offset, bytes.count)
            while counted < end, let nl = bytes.firstIndex(of: 0x0A, in: counted..<end) {
                lines += 1
                counted = nl + 1
            }
            counted = max(counted, end)
            return lines
        }

        /// Reads the document at `range`, which starts on `line` (counted when not given).
        mutating func add(_ range: Range<Int>, line given: Int? = nil) throws(Problem) {
            let line = given ?? line(at: range.lowerBound)
            do {
                if events {
                    let r = try JSONReader.read(
                        bytes[range], file: "body", limits: limits, lineOffset: line - 1, capturing: "data", asTape: true,
                        interner: &interner, nodeChunk: &chunk)
                    body.documents.append((line, r.value))
                    body.dataTexts.append(r.memberText)
                    body.dataTapes.append(r.tape)
                } else {
                    body.documents.append(
                        (line, try JSONReader.read(bytes[range], file: "body", limits: limits, lineOffset: line - 1).value))
                }
            } catch {
                throw Problem(error)
            }
        }

        /// Reads the event objects of the array that opens at `start` in place, each as `add` reads one,
        /// and returns the index past the array; nil when the array is not one this takes (an element not
        /// an object, bad JSON, over `maxDocuments`), the documents read so far then to be dropped.
        mutating func addElements(from start: Int, maxDocuments: Int) -> Int? {
            guard start < bytes.count, bytes[start] == UInt8(ascii: "[") else { return nil }
            var j = BodyScanner.skipSpace(bytes, start + 1)
            if j < bytes.count && bytes[j] == UInt8(ascii: "]") { return j + 1 }
            while true {
                guard body.documents.count < maxDocuments, j < bytes.count, bytes[j] == UInt8(ascii: "{") else { return nil }
                let line = line(at: j)
                guard
                    let r = try? JSONReader.readPrefix(
                        bytes[j...], file: "body", limits: limits, lineOffset: line - 1, capturing: "data", interner: &interner,
                        nodeChunk: &chunk)
                else { return nil }
                body.documents.append((line, r.value))
                body.dataTexts.append(r.memberText)
                body.dataTapes.append(r.tape)
                j = r.end
                guard j < bytes.count else { return nil }
                if bytes[j] == UInt8(ascii: "]") { return j + 1 }
                guard bytes[j] == UInt8(ascii: ",") else { return nil }
                j = BodyScanner.skipSpace(bytes, j + 1)
            }
        }

        /// The value at `range`.
        mutating func value(_ range: Range<Int>) throws(Problem) -> Value {
            let line = line(at: range.lowerBound)
            do { return try JSONReader.read(bytes[range], file: "body", limits: limits, lineOffset: line - 1).value } catch {
                throw Problem(error)
            }
        }

        /// The string at `range` (a key, quotes included).
        mutating func string(_ range: Range<Int>) throws(Problem) -> String {
            guard case .string(let s) = try value(range) else { throw Problem("a key must be a string", line: line(at: range.lowerBound)) }
            return s
        }
    }

    static func fromValue(_ v: Value, maxDocuments: Int, envelope: Bool) throws(Problem) -> BatchBody {
        switch v {
        case .array(let a):
            guard a.count <= maxDocuments else { throw Problem("more than \(maxDocuments) documents in one request", line: 1, column: 1) }
            return BatchBody(documents: a.map { (1, $0) })
        case .object(let o) where envelope && o["events"] != nil:
            guard case .array(let events)? = o["events"] else { throw Problem("'events' must be an array", line: 1, column: 1) }
            guard events.count <= maxDocuments else {
                throw Problem("more than \(maxDocuments) documents in one request", line: 1, column: 1)
            }
            var body = BatchBody(documents: events.map { (1, $0) })
            body.states = try states(o["states"], "states")
            body.xdmStates = try states(o["xdmStates"], "xdmStates")
            for k in o.keys where !["events", "states", "xdmStates"].contains(k) {
                throw Problem("unknown key '\(k)' (expected 'events', 'states', 'xdmStates')", line: 1, column: 1)
            }
            return body
        default:
            return BatchBody(documents: [(1, v)])
        }
    }

    static func states(_ v: Value?, _ name: String) throws(Problem) -> [String: ValueObject] {
        guard let v else { return [:] }
        guard case .object(let o) = v else { throw Problem("'\(name)' must be an object of extension name → state") }
        var out: [String: ValueObject] = [:]
        for (k, s) in o {
            guard case .object(let state) = s else { throw Problem("'\(name).\(k)' must be an object") }
            out[k] = state
        }
        return out
    }
}
