public import Foundation
public import RuleKitCore

/// The event the engine reads and produces: the fields of a hub event that rules can see.
///
/// A value type whose fields live in one shared, copy-on-write box: events are copied at every step
/// (into a resolver, a queue, a consequence), and a copy is then one reference count, not one per
/// string, object and list field.
public struct EngineEvent: Sendable, Hashable {
    final class Storage: @unchecked Sendable {
        // Mutated only while uniquely referenced (see `unique()`), so sharing it is safe.
        var id: UUID
        var name: String
        var type: String
        var source: String
        var data: ValueObject?
        var timestamp: Date
        var responseID: UUID?
        var parentID: UUID?
        var mask: [String]?

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
            Storage(
                id: id, name: name, type: type, source: source, data: data, timestamp: timestamp,
                responseID: responseID, parentID: parentID, mask: mask)
        }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// Unique per event.
    public var id: UUID {
        get { storage.id }
        set { unique().id = newValue }
    }
    /// A name for people and logs.
    public var name: String {
        get { storage.name }
        set { unique().name = newValue }
    }
    /// The event type (`~type`).
    public var type: String {
        get { storage.type }
        set { unique().type = newValue }
    }
    /// The event source (`~source`).
    public var source: String {
        get { storage.source }
        set { unique().source = newValue }
    }
    /// The event data: an object, or nil for an event without data.
    public var data: ValueObject? {
        get { storage.data }
        set { unique().data = newValue }
    }
    /// The event data as a borrowed view (see `UnsafeValueView`): valid while this event, or a copy of
    /// it, lives unmodified.
    var unsafeDataView: UnsafeObjectView? { storage.data?.unsafeView }
    /// When the event was made (`~timestampu` and friends read the clock, not this).
    public var timestamp: Date {
        get { storage.timestamp }
        set { unique().timestamp = newValue }
    }
    /// Set on a response: the id of the event it answers.
    public var responseID: UUID? {
        get { storage.responseID }
        set { unique().responseID = newValue }
    }
    /// Set on chained events: the id of the event that caused it.
    public var parentID: UUID? {
        get { storage.parentID }
        set { unique().parentID = newValue }
    }
    /// Keys whose values identify the event in history (nil: the event is not recorded).
    public var mask: [String]? {
        get { storage.mask }
        set { unique().mask = newValue }
    }

    /// An event; by default a fresh id, now, no links and no history mask.
    public init(
        id: UUID = UUID(), name: String, type: String, source: String, data: ValueObject? = nil,
        timestamp: Date = Date(), responseID: UUID? = nil, parentID: UUID? = nil, mask: [String]? = nil
    ) {
        storage = Storage(
            id: id, name: name, type: type, source: source, data: data, timestamp: timestamp,
            responseID: responseID, parentID: parentID, mask: mask)
    }

    /// Equal when every field is.
    public static func == (a: EngineEvent, b: EngineEvent) -> Bool {
        if a.storage === b.storage { return true }
        let x = a.storage
        let y = b.storage
        return x.id == y.id && x.name == y.name && x.type == y.type && x.source == y.source && x.data == y.data
            && x.timestamp == y.timestamp && x.responseID == y.responseID && x.parentID == y.parentID
            && x.mask == y.mask
    }

    /// Hashes every field, consistently with `==`.
    public func hash(into h: inout Hasher) {
        let x = storage
        h.combine(x.id)
        h.combine(x.name)
        h.combine(x.type)
        h.combine(x.source)
        h.combine(x.data)
        h.combine(x.timestamp)
        h.combine(x.responseID)
        h.combine(x.parentID)
        h.combine(x.mask)
    }

    /// A new event chained to this one (`parentID` set, no `responseID`), as consequences produce.
    public func chained(name: String, type: String, source: String, data: ValueObject?) -> EngineEvent {
        EngineEvent(name: name, type: type, source: source, data: data, parentID: id)
    }

    /// The same event (same id, timestamp, links and mask) with other data.
    public func withData(_ data: ValueObject?) -> EngineEvent {
        var e = self
        e.data = data
        return e
    }
}

/// Well-known event types and sources the engine uses.
public enum RulesEventNames {
    /// The type of the engine's own events.
    public static let rulesEngineType = "com.adobe.eventType.rulesEngine"
    /// The source of consequence events.
    public static let responseContent = "com.adobe.eventSource.responseContent"
    /// The source of the reset event that marks a rules load.
    public static let requestReset = "com.adobe.eventSource.requestReset"
    /// The name of events carrying a rule's consequence.
    public static let consequenceEventName = "Rules Consequence Event"
    /// The name of events a `dispatch` consequence makes.
    public static let dispatchEventName = "Dispatch Consequence Result"
    /// The schema of `schema` consequences that record or query event history.
    public static let historySchema = "https://ns.adobe.com/personalization/eventHistoryOperation"
    /// The engine name the reference's Configuration extension uses.
    public static let defaultEngineName = "com.adobe.module.configuration.rulesengine"
}
