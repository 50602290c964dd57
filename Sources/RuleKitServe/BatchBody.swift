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
    public static func parse(_ bytes: [UInt8], maxDocuments: Int, limits: ReaderLimits, envelope: Bool) throws(Problem) -> BatchBody {
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else {
            return BatchBody(documents: [])
        }
        if bytes[first] == UInt8(ascii: "[") || bytes[first] == UInt8(ascii: "{") {
            // One JSON text (an array, an envelope, or a single document), unless it is JSON lines.
            if let whole = try? JSONReader.read(bytes, file: "body", limits: limits).value {
                return try fromValue(whole, maxDocuments: maxDocuments, envelope: envelope)
            }
            if bytes[first] == UInt8(ascii: "[") {
                do { _ = try JSONReader.read(bytes, file: "body", limits: limits) } catch { throw Problem(error) }
            }
        }
        var documents: [(Int, Value)] = []
        var texts: [[UInt8]?] = []
        var tapes: [JSONTape?] = []
        var line = 1
        var start = 0
        var i = 0
        while i <= bytes.count {
            if i == bytes.count || bytes[i] == 0x0A {
                let slice = bytes[start..<i]
                if slice.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) {
                    guard documents.count < maxDocuments else {
                        throw Problem("more than \(maxDocuments) documents in one request", line: line, column: 1)
                    }
                    do {
                        if envelope {
                            let r = try JSONReader.read(slice, file: "body", limits: limits, lineOffset: line - 1, tapeOf: "data")
                            documents.append((line, r.value))
                            texts.append(r.memberText)
                            tapes.append(r.tape)
                        } else {
                            documents.append((line, try JSONReader.read(slice, file: "body", limits: limits, lineOffset: line - 1).value))
                        }
                    } catch {
                        throw Problem(error)
                    }
                }
                line += 1
                start = i + 1
            }
            i += 1
        }
        var body = BatchBody(documents: documents)
        body.dataTexts = texts
        body.dataTapes = tapes
        return body
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
