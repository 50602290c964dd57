public import Foundation

/// What an event carries as data, in the one form it is kept in.
///
/// Data read from JSON stays as read for as long as nothing changes it, so that the engine reads it in place
/// and a writer copies its text; a merge into such data is laid over it. The forms exclude each other, which
/// one enum says where four optional fields had to be kept apart by hand.
public enum EventData: Sendable {
    /// No data.
    case none
    /// An object made in code or read into a tree, with the JSON text it was read from, byte for byte, while
    /// it is still what was read (nil for data made in code, and after any change).
    case tree(ValueObject, text: [UInt8]?)
    /// An object read from JSON into a tape and unchanged: read in place, made into a `ValueObject` only when
    /// asked for.
    case tape(JSONTape)
    /// An object read into a tape with one merge laid over it (`Event.merging`).
    case overlay(DataOverlay)

    /// The data as an object (a tape or an overlay is made into one); nil for `.none`.
    public var object: ValueObject? {
        switch self {
        case .none: nil
        case .tree(let o, _): o
        case .tape(let t): t.object()
        case .overlay(let o): o.object()
        }
    }
}

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
        var payload: EventData
        var timestamp: Date
        var responseID: UUID?
        var parentID: UUID?
        var mask: [String]?
        /// The rules layer's count of rules-consequence events in a row (`chainDepth`), and the parent's
        /// (`parentChainDepth`): bookkeeping, not part of the event's equality.
        var chainDepth: Int32 = 0
        var parentChainDepth: Int32 = 0

        init(
            id: UUID, name: String, type: String, source: String, payload: EventData, timestamp: Date,
            responseID: UUID?, parentID: UUID?, mask: [String]?
        ) {
            self.id = id
            self.name = name
            self.type = type
            self.source = source
            self.payload = payload
            self.timestamp = timestamp
            self.responseID = responseID
            self.parentID = parentID
            self.mask = mask
        }

        func copy() -> Storage {
            let c = Storage(
                id: id, name: name, type: type, source: source, payload: payload, timestamp: timestamp,
                responseID: responseID, parentID: parentID, mask: mask)
            c.chainDepth = chainDepth
            c.parentChainDepth = parentChainDepth
            return c
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
    /// Data kept as a tape or an overlay is made into a `ValueObject` on the first read, once: readers that
    /// only look should look through `withDataView`, which makes nothing.
    public var data: ValueObject? {
        get { storage.payload.object }
        set { unique().payload = newValue.map { .tree($0, text: nil) } ?? .none }
    }

    /// Lends the data, in the form it is kept in, to `body`, without copying it: the engine's resolvers and
    /// the writers read it there (a tape in place, a text copied as is).
    public func withDataView<R>(_ body: (EventData) throws -> R) rethrows -> R {
        try body(storage.payload)
    }

    /// The JSON text `data` was read from, byte for byte, while `data` is still what was read: a writer
    /// copies it instead of encoding the object again. Any change to `data` drops it; nil for data made
    /// in code.
    public var dataText: [UInt8]? {
        switch storage.payload {
        case .tree(_, let text): text
        case .tape(let t): Array(t.text)
        case .none, .overlay: nil
        }
    }

    /// The data as read into a tape, while it is unchanged (`withDataView`'s `.tape`).
    public var document: JSONTape? {
        if case .tape(let t) = storage.payload { return t }
        return nil
    }

    /// The data as read with one merge over it (`withDataView`'s `.overlay`).
    public var overlay: DataOverlay? {
        if case .overlay(let o) = storage.payload { return o }
        return nil
    }

    /// The same event with `patch` merged into its data as `EventDataMerge.merge` does (`add`, or `mod`
    /// with `overwrite`); the same event when it has no data. Data kept as a tape stays the tape, with the
    /// merge laid over it (`overlay`), and no tree is made; a later merge that only adds new members joins
    /// the overlay (`DataOverlay.adding`).
    public func merging(_ patch: ValueObject, overwrite: Bool) -> Event {
        var e = self
        if case .tape(let tape) = storage.payload {
            e.unique().payload = .overlay(DataOverlay(base: tape, patch: patch, overwrite: overwrite))
            return e
        }
        if case .overlay(let overlay) = storage.payload, let more = overlay.adding(patch, overwrite: overwrite) {
            e.unique().payload = .overlay(more)
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
        e.unique().payload = other.storage.payload
        return e
    }

    /// Sets `dataText`. The caller vouches that `text` is one JSON object that reads as `data` (the reader
    /// that produced both, with no duplicate keys): a writer trusts it.
    package mutating func setDataText(_ text: [UInt8]?) {
        guard case .tree(let o, _) = storage.payload else { return }
        unique().payload = .tree(o, text: text)
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
        unique().payload = .tape(tape)
    }

    /// Whether `other` certainly has the same data without comparing them: the same storage, or the same
    /// tape untouched. False says nothing (compare `data` then).
    package func sharesData(with other: Event) -> Bool {
        if storage === other.storage { return true }
        switch (storage.payload, other.storage.payload) {
        case (.tape(let a), .tape(let b)): return a === b
        case (.overlay(let a), .overlay(let b)): return a === b
        default: return false
        }
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
    /// How many rules-consequence events in a row end with this one, when the rules engine made it (0
    /// otherwise): the rules layer's bound on consequence chains reads it instead of looking the parent
    /// up. Not part of equality.
    package var chainDepth: Int32 {
        get { storage.chainDepth }
        set { unique().chainDepth = newValue }
    }
    /// The parent's `chainDepth` when this event was made by `createChainedEvent` or
    /// `createResponseEvent` (0 otherwise): what lets a chain be counted through events other extensions make.
    package var parentChainDepth: Int32 { storage.parentChainDepth }

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
            id: id, name: name, type: type, source: source, payload: data.map { .tree($0, text: nil) } ?? .none,
            timestamp: timestamp,
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
        let e = Event(name: name, type: type, source: source, data: data, responseID: id, parentID: id)
        e.storage.parentChainDepth = storage.chainDepth
        return e
    }

    /// An event caused by this one: only `parentID` is set.
    public func createChainedEvent(
        name: String, type: String, source: String, data: ValueObject?, mask: [String]? = nil
    ) -> Event {
        let e = Event(name: name, type: type, source: source, data: data, parentID: id, mask: mask)
        // A new box, referenced only here: set in place.
        e.storage.parentChainDepth = storage.chainDepth
        return e
    }

    /// The same event (id, timestamp, links, mask, number) with other data: what preprocessors and
    /// consequences return.
    public func copy(withData data: ValueObject?) -> Event {
        var e = self
        e.data = data
        return e
    }
}
