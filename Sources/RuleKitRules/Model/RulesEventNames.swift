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
