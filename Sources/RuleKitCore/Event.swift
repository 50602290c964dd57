public import Foundation

/// An event: what extensions send each other through the hub, and what the rules engine reads and
/// produces. One type for both layers, so the engine's view of a hub event is the event itself (its hub
/// number included) and nothing is copied or looked up again between them.
///
/// A value type whose fields live in one shared, copy-on-write box: events are copied at every step (into
/// a queue, a resolver, a consequence), and a copy is then one reference count, not one per string,
/// object and list field.
public struct Event: Sendable, Hashable, CustomStringConvertible {
    final class Storage: @unchecked Sendable {
        // @unchecked: mutated only while uniquely referenced (see `unique()`), so sharing it is safe.
        var id: UUID
        var name: String
        var type: String
        var source: String
        var data: ValueObject?
        var timestamp: Date
        var responseID: UUID?
        var parentID: UUID?
        var mask: [String]?
        var dataText: [UInt8]?
        /// The data as read, when it was read into a tape: `data` is then nil here and made from the tape
        /// when asked for.
        var tape: JSONTape?
        /// The data as read with a merge over it (`merging`): `data` and `tape` are then nil here.
        var overlay: DataOverlay?

        init(
            id: UUID, name: String, type: String, source: String, data: ValueObject?, timestamp: Date,
            responseID: UUID?, parentID: UUID?, mask: [String]?
        ) {
            self.id = id
            self.name = name
            self.type = type
            self.source = source
            self.data = data
            self.timestamp = timestamp
            self.responseID = responseID
            self.parentID = parentID
            self.mask = mask
        }

        func copy() -> Storage {
            let s = Storage(
                id: id, name: name, type: type, source: source, data: data, timestamp: timestamp,
                responseID: responseID, parentID: parentID, mask: mask)
            s.dataText = dataText
            s.tape = tape
            s.overlay = overlay
            return s
        }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// Unique per event; responses and chained events refer to it.
    public var id: UUID {
        get { storage.id }
        set { unique().id = newValue }
    }
    /// A name for people and logs.
    public var name: String {
        get { storage.name }
        set { unique().name = newValue }
    }
    /// The event type (`~type`); listeners register for a type and a source.
    public var type: String {
        get { storage.type }
        set { unique().type = newValue }
    }
    /// The event source (`~source`).
    public var source: String {
        get { storage.source }
        set { unique().source = newValue }
    }
    /// The payload: an object, or nil for an event without data.
    ///
    /// Data read from JSON into a tape (`document`) is made into a `ValueObject` on the first read, once.
    public var data: ValueObject? {
        get { storage.data ?? storage.tape?.object() ?? storage.overlay?.object() }
        set {
            let s = unique()
            s.data = newValue
            s.dataText = nil
            s.tape = nil
            s.overlay = nil
        }
    }
    /// The JSON text `data` was read from, byte for byte, while `data` is still what was read: a writer
    /// copies it instead of encoding the object again. Any change to `data` drops it; nil for data made
    /// in code.
    public var dataText: [UInt8]? { storage.dataText ?? storage.tape.map { Array($0.text) } }

    /// Calls `body` with `dataText`'s bytes where they are (a tape's text is a slice of the buffer it was
    /// read from: no copy); nil, without calling it, when there is no such text.
    package func withDataBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        if let text = storage.dataText { return text.withUnsafeBufferPointer(body) }
        guard let tape = storage.tape else { return nil }
        return tape.text.withUnsafeBufferPointer(body)
    }

    /// The data as read into a tape, while it is unchanged: readers that only look (the rules engine, a
    /// writer) read it without making a `ValueObject`. nil for data made in code, and after any change.
    public var document: JSONTape? { storage.tape }

    /// The data as read with one merge over it, when a consequence merged into data kept as a tape
    /// (`merging`): writers write the merge from the tape; `data` makes the merged object when asked.
    public var overlay: DataOverlay? { storage.overlay }

    /// The same event with `patch` merged into its data as `EventDataMerge.merge` does (`add`, or `mod`
    /// with `overwrite`); the same event when it has no data. Data kept as a tape stays the tape, with the
    /// merge laid over it (`overlay`), and no tree is made.
    public func merging(_ patch: ValueObject, overwrite: Bool) -> Event {
        var e = self
        if let tape = storage.tape {
            let s = e.unique()
            s.tape = nil
            s.overlay = DataOverlay(base: tape, patch: patch, overwrite: overwrite)
            return e
        }
        guard let data else { return self }
        e.data = EventDataMerge.merge(to: data, from: patch, overwrite: overwrite)
        return e
    }

    /// This event with `other`'s data, in the form `other` keeps it (a tape, an overlay, a tree): what a
    /// preprocessor returns when the rules changed the data and nothing else.
    package func copy(withDataOf other: Event) -> Event {
        var e = self
        let s = e.unique()
        s.data = other.storage.data
        s.dataText = other.storage.dataText
        s.tape = other.storage.tape
        s.overlay = other.storage.overlay
        return e
    }

    /// Sets `dataText`. The caller vouches that `text` is one JSON object that reads as `data` (the reader
    /// that produced both, with no duplicate keys): a writer trusts it.
    package mutating func setDataText(_ text: [UInt8]?) {
        guard data != nil else { return }
        unique().dataText = text
    }

    /// Sets the data to the object `tape` stands for, kept as the tape (`JSONReader.read(_:file:limits:
    /// lineOffset:tapeOf:)` reads one): the engine and writers read it in place, and `data` makes a
    /// `ValueObject` of it only when asked. A tape whose text is not JSON (`isJSONText` false: assembled from
    /// YAML) is made into its object at once, since writers copy a kept tape's text as JSON.
    public mutating func setDocument(_ tape: JSONTape) {
        guard tape.isJSONText else {
            data = tape.object()
            return
        }
        let s = unique()
        s.data = nil
        s.dataText = nil
        s.tape = tape
        s.overlay = nil
    }

    /// Whether `other` certainly has the same data without comparing them: the same storage, or the same
    /// tape untouched. False says nothing (compare `data` then).
    package func sharesData(with other: Event) -> Bool {
        if storage === other.storage { return true }
        if let t = storage.tape, t === other.storage.tape { return true }
        if let o = storage.overlay, o === other.storage.overlay { return true }
        return false
    }
    /// When the event was made (the `~timestamp*` tokens read the evaluation clock, not this).
    public var timestamp: Date {
        get { storage.timestamp }
        set { unique().timestamp = newValue }
    }
    /// Set on a response: the id of the event it answers.
    public var responseID: UUID? {
        get { storage.responseID }
        set { unique().responseID = newValue }
    }
    /// Set on responses and chained events: the id of the event that caused it.
    public var parentID: UUID? {
        get { storage.parentID }
        set { unique().parentID = newValue }
    }
    /// Keys whose values identify the event in event history; nil: not recorded.
    public var mask: [String]? {
        get { storage.mask }
        set { unique().mask = newValue }
    }
    /// The hub's sequence number, set when the hub delivers the event (its shared-state version); nil for
    /// an event no hub has numbered.
    ///
    /// Kept beside the shared box, not in it: the hub numbers every event it is handed, and the caller
    /// usually still holds that event, so a number in the box would copy the box (every field retained
    /// again) for every event.
    public package(set) var number: Int?

    /// An event; by default made now, with a fresh id, no links, no history mask and no number.
    public init(
        id: UUID = EventID.next(), name: String, type: String, source: String, data: ValueObject? = nil,
        timestamp: Date = Date(), responseID: UUID? = nil, parentID: UUID? = nil, mask: [String]? = nil
    ) {
        storage = Storage(
            id: id, name: name, type: type, source: source, data: data, timestamp: timestamp,
            responseID: responseID, parentID: parentID, mask: mask)
    }

    /// Equal when every field but the hub number is (a copy of an event made before the hub numbered it
    /// is the same event).
    public static func == (a: Event, b: Event) -> Bool {
        if a.storage === b.storage { return true }
        let x = a.storage
        let y = b.storage
        return x.id == y.id && x.name == y.name && x.type == y.type && x.source == y.source
            && (a.sharesData(with: b) || a.data == b.data) && x.timestamp == y.timestamp
            && x.responseID == y.responseID && x.parentID == y.parentID
            && x.mask == y.mask
    }

    /// Hashes the id (equal events have equal ids).
    public func hash(into h: inout Hasher) { h.combine(storage.id) }

    /// The name, type, source, id and data, for logs.
    public var description: String {
        "Event(\(name), \(type), \(source), id: \(id)\(data.map { ", data: \(Value.object($0))" } ?? ""))"
    }

    /// A response to this event: `responseID` and `parentID` are this event's id.
    public func createResponseEvent(name: String, type: String, source: String, data: ValueObject?) -> Event {
        Event(name: name, type: type, source: source, data: data, responseID: id, parentID: id)
    }

    /// An event caused by this one: only `parentID` is set.
    public func createChainedEvent(
        name: String, type: String, source: String, data: ValueObject?, mask: [String]? = nil
    ) -> Event {
        Event(name: name, type: type, source: source, data: data, parentID: id, mask: mask)
    }

    /// The same event (id, timestamp, links, mask, number) with other data: what preprocessors and
    /// consequences return.
    public func copy(withData data: ValueObject?) -> Event {
        var e = self
        e.data = data
        return e
    }
}
