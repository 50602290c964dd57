public import Foundation
public import RuleKitCore

/// The event the engine reads and produces: the fields of a hub event that rules can see.
public struct EngineEvent: Sendable, Hashable {
    public var id: UUID
    public var name: String
    public var type: String
    public var source: String
    /// The event data: an object, or nil for an event without data.
    public var data: ValueObject?
    public var timestamp: Date
    public var responseID: UUID?
    public var parentID: UUID?
    /// Keys whose values identify the event in history (nil: the event is not recorded).
    public var mask: [String]?

    public init(id: UUID = UUID(), name: String, type: String, source: String, data: ValueObject? = nil,
                timestamp: Date = Date(), responseID: UUID? = nil, parentID: UUID? = nil, mask: [String]? = nil) {
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
    public static let rulesEngineType = "com.adobe.eventType.rulesEngine"
    public static let responseContent = "com.adobe.eventSource.responseContent"
    public static let requestReset = "com.adobe.eventSource.requestReset"
    public static let consequenceEventName = "Rules Consequence Event"
    public static let dispatchEventName = "Dispatch Consequence Result"
    public static let historySchema = "https://ns.adobe.com/personalization/eventHistoryOperation"
    /// The engine name the reference's Configuration extension uses.
    public static let defaultEngineName = "com.adobe.module.configuration.rulesengine"
}
