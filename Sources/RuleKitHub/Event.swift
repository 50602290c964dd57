// RuleKitHub is the event hub RuleKit runs in: extensions with their own serial queues, listeners,
// response listeners with time-outs, shared states and XDM shared states versioned by event,
// `readyForEvent`, start/stop of event delivery, event preprocessors (where the rules engine plugs in),
// extension dependencies and published APIs, and a testable runtime for extension tests. It follows
// the AEP EventHub contract (`docs/event-hub.md`) and depends only on RuleKitCore.
public import Foundation
public import RuleKitCore

/// An event: what extensions send each other through the hub.
public struct Event: Sendable, Hashable, CustomStringConvertible {
    /// Unique per event; responses refer to it.
    public let id: UUID
    /// A name for people and logs.
    public let name: String
    /// The event type; listeners register for a type and a source.
    public let type: String
    /// The event source.
    public let source: String
    /// The payload: an object, or nil for an event without data.
    public let data: ValueObject?
    /// When the event was made.
    public let timestamp: Date
    /// Set on a response: the id of the event it answers.
    public let responseID: UUID?
    /// Set on responses and chained events: the id of the event that caused it.
    public let parentID: UUID?
    /// Keys whose values identify the event in event history; nil: not recorded.
    public let mask: [String]?
    /// The hub's sequence number, set when the hub delivers the event (its shared-state version).
    public internal(set) var number: Int?

    /// A new event, made now with a fresh id.
    public init(name: String, type: String, source: String, data: ValueObject? = nil, mask: [String]? = nil) {
        self.init(
            id: UUID(), name: name, type: type, source: source, data: data, timestamp: Date(), responseID: nil,
            parentID: nil, mask: mask)
    }

    /// An event with every field given (copies, responses, replays).
    public init(
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
        self.number = nil
    }

    /// A response to this event: `responseID` and `parentID` are this event's id.
    public func createResponseEvent(name: String, type: String, source: String, data: ValueObject?) -> Event {
        Event(
            id: UUID(), name: name, type: type, source: source, data: data, timestamp: Date(), responseID: id,
            parentID: id, mask: nil)
    }

    /// An event caused by this one: only `parentID` is set.
    public func createChainedEvent(
        name: String, type: String, source: String, data: ValueObject?,
        mask: [String]? = nil
    ) -> Event {
        Event(
            id: UUID(), name: name, type: type, source: source, data: data, timestamp: Date(), responseID: nil,
            parentID: id, mask: mask)
    }

    /// The same event (id, timestamp, links, mask) with other data: what preprocessors return.
    public func copy(withData data: ValueObject?) -> Event {
        var e = Event(
            id: id, name: name, type: type, source: source, data: data, timestamp: timestamp,
            responseID: responseID, parentID: parentID, mask: mask)
        e.number = number
        return e
    }

    /// Equal when every field but the hub number is.
    public static func == (a: Event, b: Event) -> Bool {
        a.id == b.id && a.name == b.name && a.type == b.type && a.source == b.source && a.data == b.data
            && a.timestamp == b.timestamp && a.responseID == b.responseID && a.parentID == b.parentID && a.mask == b.mask
    }

    /// Hashes the id.
    public func hash(into h: inout Hasher) { h.combine(id) }

    /// The name, type, source, id and data, for logs.
    public var description: String {
        "Event(\(name), \(type), \(source), id: \(id)\(data.map { ", data: \(Value.object($0))" } ?? ""))"
    }
}

/// Event types, including the hub's own and the wildcard.
public enum EventType {
    /// Matches every type in a listener registration.
    public static let wildcard = "com.adobe.eventType._wildcard_"
    /// The hub's own events (booted, shared-state changes).
    public static let hub = "com.adobe.eventType.hub"
    /// Configuration changes.
    public static let configuration = "com.adobe.eventType.configuration"
    /// App lifecycle.
    public static let lifecycle = "com.adobe.eventType.lifecycle"
    /// Edge Network requests and responses.
    public static let edge = "com.adobe.eventType.edge"
    /// Rules-engine events (reset, consequences).
    public static let rulesEngine = "com.adobe.eventType.rulesEngine"
    /// Generic tracking calls.
    public static let genericTrack = "com.adobe.eventType.generic.track"
    /// Generic identity calls.
    public static let genericIdentity = "com.adobe.eventType.generic.identity"
    /// Identity requests and responses.
    public static let identity = "com.adobe.eventType.identity"
}

/// Event sources, including the hub's own and the wildcard.
public enum EventSource {
    /// Matches every source in a listener registration.
    public static let wildcard = "com.adobe.eventSource._wildcard_"
    /// A shared state changed.
    public static let sharedState = "com.adobe.eventSource.sharedState"
    /// The hub booted.
    public static let booted = "com.adobe.eventSource.booted"
    /// A request for content.
    public static let requestContent = "com.adobe.eventSource.requestContent"
    /// A response with content.
    public static let responseContent = "com.adobe.eventSource.responseContent"
    /// A request for identity.
    public static let requestIdentity = "com.adobe.eventSource.requestIdentity"
    /// A request to reset (the rules engine's reset event).
    public static let requestReset = "com.adobe.eventSource.requestReset"
    /// The app launched.
    public static let applicationLaunch = "com.adobe.eventSource.applicationLaunch"
}
