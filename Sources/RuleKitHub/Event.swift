// RuleKitHub is the event hub RuleKit runs in: extensions with their own serial queues, listeners,
// response listeners with time-outs, shared states and XDM shared states versioned by event,
// `readyForEvent`, start/stop of event delivery, event preprocessors (where the rules engine plugs in),
// extension dependencies and published APIs, and a testable runtime for extension tests. It follows
// the AEP EventHub contract (`docs/event-hub.md`) and depends only on RuleKitCore.

// `Event` itself lives in RuleKitCore: the hub and the rules engine share it.

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
    /// Every type above: readers of events share these strings (literals, never reference counted).
    public static let known = [wildcard, hub, configuration, lifecycle, edge, rulesEngine, genericTrack, genericIdentity, identity]
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
    /// Every source above: readers of events share these strings (literals, never reference counted).
    public static let known = [
        wildcard, sharedState, booted, requestContent, responseContent, requestIdentity, requestReset, applicationLaunch,
    ]
}
