// Events as JSON objects, the one shape `rulekit run` writes and `rulekit serve` reads and answers with.
public import Foundation
public import RuleKitCore
internal import RuleKitHub

/// Converts between events and their JSON-lines shape: in, `{"id","name","type","source","data","mask"}`; out,
/// `{"id","name","type","source","data","parentID","responseID"}`.
public enum EventJSON {
    /// The finding for line `line` of the event stream `file`: JSON, but not an object. One text for every
    /// reader of event streams (`rulekit run`, `match`, `report`).
    ///
    /// - Parameters:
    ///   - file: the stream's name.
    ///   - line: the line's number.
    /// - Returns: the finding.
    public static func notAnEvent(file: String, line: Int) -> Diagnostic {
        .error(.notAnEvent, "an event must be an object", at: SourceLocation(file: file, line: line, column: 1))
    }

    /// The hub's event types and sources: a reader of input lines passes them to
    /// `JSONLinesBlock.records(limits:tapeOf:sharing:)`, so the events it makes carry these literal strings.
    public static let knownStrings = EventType.known + EventSource.known

    /// The event an input object describes (missing fields: name `event`, empty type and source, no data).
    ///
    /// - Parameters:
    ///   - o: the input object (checked by `EventShape` by the callers that read input).
    ///   - dataText: the exact text of the object's `data` member as read
    ///     (`JSONLinesBlock.records(keepingTextOf: "data")`, or `records(tapeOf:)` when the tape refused the
    ///     member): kept on the event, a writer copies it while the data is unchanged.
    ///   - document: the object's `data` read as a tape (`JSONLinesBlock.records(tapeOf: "data")`, which
    ///     leaves it out of `o`): the event's data, made into a `ValueObject` only if a listener asks.
    /// - Returns: the event.
    public static func event(_ o: ValueObject, dataText: [UInt8]? = nil, document: JSONTape? = nil) -> Event {
        event(o, members: EventShape.Members(of: o), dataText: dataText, document: document)
    }

    /// The event of the input object `o`, whose members are `m` (found once, for the check and for this).
    ///
    /// - Parameters:
    ///   - o: the input line's object.
    ///   - m: its members (`EventShape.Members(of: o)`).
    ///   - dataText: the text of its `data`, when the reader kept it.
    ///   - document: the tape of its `data`, when the reader made one.
    /// - Returns: the event (absent or mistyped members take their defaults, as a checked event has none).
    public static func event(
        _ o: ValueObject, members m: EventShape.Members, dataText: [UInt8]? = nil, document: JSONTape? = nil
    ) -> Event {
        func member(_ i: Int) -> Value? { i >= 0 && i < o.count ? o.value(at: i) : nil }
        var e = Event(
            name: member(m.name)?.stringValue ?? "event", type: member(m.type)?.stringValue ?? "",
            source: member(m.source)?.stringValue ?? "", data: member(m.data)?.objectValue)
        if case .array(let items)? = member(m.mask) { e.mask = items.compactMap(\.stringValue) }
        if case .string(let id)? = member(m.id) { e.id = eventID(id) }
        if let document { e.setDocument(document) } else { e.setDataText(dataText) }
        return e
    }

    /// The hub id of an input event's `id`: the UUID it spells, or one made from its text (the same text,
    /// the same id): what keys the history an event causes, so a retried event is recorded once.
    ///
    /// - Parameter text: the input's `id`.
    /// - Returns: the hub id.
    public static func eventID(_ text: String) -> UUID {
        if let u = EventID.canonical(text) ?? UUID(uuidString: text) { return u }
        // Two FNV-1a 64 passes with different offsets: 128 bits of the text; version 8 (vendor-defined)
        // and the RFC variant marked, so it reads as a UUID and never as one a client sent.
        var a: UInt64 = 0xCBF2_9CE4_8422_2325
        var b: UInt64 = 0x8422_2325_CBF2_9CE4
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b << 7) | (b >> 57)
        }
        return EventID.uuid((a & 0xFFFF_FFFF_FFFF_0FFF) | 0x8000, (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
    }

    /// The event a record of `JSONLinesBlock.records(tapeOf: "data")` describes, or nil when the line is
    /// not an object (or could not be read).
    ///
    /// - Parameter record: a record of an input block.
    /// - Returns: the event, or nil.
    public static func event(_ record: JSONLinesRecord) -> Event? {
        guard case .success(.object(let o)) = record.value else { return nil }
        return event(o, dataText: record.memberText, document: record.tape)
    }

    /// The event line `record` of the stream `file` describes, checked as `serve` checks a batch's events
    /// (`EventShape`): a line that is not JSON, not an object, or not an event's shape is its located error.
    ///
    /// - Parameters:
    ///   - record: a record of an input block.
    ///   - file: the stream's name, for the error.
    /// - Returns: the event, or its located error.
    public static func checkedEvent(_ record: JSONLinesRecord, file: String) -> Result<Event, DiagnosticError> {
        switch record.value {
        case .failure(let e): return .failure(e)
        case .success(let v):
            guard case .object(let o) = v else { return .failure(DiagnosticError(notAnEvent(file: file, line: record.line))) }
            let members = EventShape.Members(of: o)
            if let p = EventShape.problem(o, members, dataInTape: record.tape != nil) {
                return .failure(DiagnosticError(invalid(p, file: file, line: record.line)))
            }
            return .success(event(o, members: members, dataText: record.memberText, document: record.tape))
        }
    }

    /// The finding for line `line` of `file`, whose event has the shape problem `p`.
    ///
    /// - Parameters:
    ///   - p: the shape problem.
    ///   - file: the stream's name.
    ///   - line: the line's number.
    /// - Returns: the finding.
    public static func invalid(_ p: EventShape.Problem, file: String, line: Int) -> Diagnostic {
        .error(
            p.pointer.isEmpty ? .notAnEvent : .invalidEvent, p.message, at: SourceLocation(file: file, line: line, column: 1),
            pointer: p.pointer.isEmpty ? nil : p.pointer)
    }

    /// The output object of a delivered event.
    ///
    /// - Parameter e: the delivered event.
    /// - Returns: `{id, name, type, source, data, parentID, responseID}` (absent members left out).
    public static func object(_ e: Event) -> ValueObject {
        var o = ValueObject(minimumCapacity: 7)
        o["id"] = .string(e.id.text)
        o["name"] = .string(e.name)
        o["type"] = .string(e.type)
        o["source"] = .string(e.source)
        if let d = e.data { o["data"] = .object(d) }
        if let p = e.parentID { o["parentID"] = .string(p.text) }
        if let r = e.responseID { o["responseID"] = .string(r.text) }
        return o
    }

    /// Appends the output object of a delivered event, as one line of JSON and a newline, without building
    /// the object: `object(_:)` written by `JSONWriter`, byte for byte, except that data kept as read is
    /// written as read (unchanged data whole, merged data's unchanged members: `docs/streams.md`).
    ///
    /// - Parameters:
    ///   - e: the delivered event.
    ///   - out: the bytes the line is appended to.
    public static func writeLine(_ e: Event, to out: inout [UInt8]) {
        JSONWriter.append(#"{"id":""#, to: &out)
        JSONWriter.writeUUID(e.id, to: &out)
        JSONWriter.append(#"","name":"#, to: &out)
        JSONWriter.writeString(e.name, to: &out)
        JSONWriter.append(#","type":"#, to: &out)
        JSONWriter.writeString(e.type, to: &out)
        JSONWriter.append(#","source":"#, to: &out)
        JSONWriter.writeString(e.source, to: &out)
        // The text as read when there is one (a tape's without a copy); asking for `data` would make a tree
        // of a tape.
        e.withDataView { data in
            switch data {
            case .none: break
            case .tree(_, .some(let text)):
                JSONWriter.append(#","data":"#, to: &out)
                out.append(contentsOf: text)
            case .tree(let d, nil):
                JSONWriter.append(#","data":"#, to: &out)
                JSONWriter.write(d, to: &out)
            case .tape(let t):
                JSONWriter.append(#","data":"#, to: &out)
                out.append(contentsOf: t.text)
            case .overlay(let overlay):
                // The merge written from the tape: unchanged members as read, no tree made.
                JSONWriter.append(#","data":"#, to: &out)
                overlay.write(to: &out)
            }
        }
        if let p = e.parentID {
            JSONWriter.append(#","parentID":""#, to: &out)
            JSONWriter.writeUUID(p, to: &out)
            out.append(0x22)
        }
        if let r = e.responseID {
            JSONWriter.append(#","responseID":""#, to: &out)
            JSONWriter.writeUUID(r, to: &out)
            out.append(0x22)
        }
        JSONWriter.append("}\n", to: &out)
    }
}

extension DiagnosticCode {
    /// A line of an event stream that is JSON but not an object.
    public static let notAnEvent: DiagnosticCode = "input.not-an-event"
    /// A line of an event stream that is an object but not an event's shape (`EventShape`).
    public static let invalidEvent: DiagnosticCode = "input.invalid-event"
}
