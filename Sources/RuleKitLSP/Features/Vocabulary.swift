internal import RuleKitRules

/// What the editor says about the rules format's words: matchers with their Launch traps, keys with their
/// meaning, the reference's tokens, event types and sources. The facts are those of
/// `docs/launch-rules-reference.md` (§2.2–2.3, §3) and `docs/rules-format.md`.
enum Vocabulary {
    /// One matcher code: what it is, and how the reference converts and compares (`Operation`'s table).
    typealias Matcher = Operation.Description

    static let conversion =
        "The value's JSON type picks the conversion of the event's value: a string compares as text "
        + "(case-insensitive), an integer as Int (a double in the event is truncated: `eq 3` matches 3.9), a double as "
        + "Double, a boolean as Bool (`\"true\"` in any case is true). A value that does not convert makes the "
        + "comparison false."

    /// Every matcher, in `Operation`'s order: the engine's enum is the one list.
    static let matchers: [Matcher] = Operation.allCases.map(\.description)

    static func matcher(_ code: String) -> Matcher? { matchers.first { $0.code == code } }

    /// The reference's `~` tokens, with what each reads.
    static let tokens: [(String, String)] = [
        ("~type", "the event's type"),
        ("~source", "the event's source"),
        ("~state.", "a leaf of an extension's standard shared state: ~state.<extension>/<path>"),
        ("~xdm.", "a leaf of an extension's XDM shared state (RuleKit): ~xdm.<extension>/<path>"),
        ("~timestampu", "the evaluation time, integer seconds since 1970"),
        ("~timestampz", "the evaluation time in the device's zone, yyyy-MM-dd'T'HH:mm:ssXX"),
        ("~timestampp", "the evaluation time in UTC with milliseconds, yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"),
        ("~sdkver", "the core's version"),
        ("~cachebust", "a random integer as text (there is no ~rand)"),
        ("~all_url", "the event data as a URL query string"),
        ("~all_json", "the event data as JSON text"),
    ]

    /// Event types the reference and its extensions dispatch.
    static let eventTypes = [
        "com.adobe.eventType.acquisition", "com.adobe.eventType.analytics", "com.adobe.eventType.audienceManager",
        "com.adobe.eventType.campaign", "com.adobe.eventType.configuration", "com.adobe.eventType.custom",
        "com.adobe.eventType.edge", "com.adobe.eventType.edgeConsent", "com.adobe.eventType.edgeIdentity",
        "com.adobe.eventType.generic.data", "com.adobe.eventType.generic.identity", "com.adobe.eventType.generic.lifecycle",
        "com.adobe.eventType.generic.pii", "com.adobe.eventType.generic.track", "com.adobe.eventType.hub",
        "com.adobe.eventType.identity", "com.adobe.eventType.lifecycle", "com.adobe.eventType.location",
        "com.adobe.eventType.messaging", "com.adobe.eventType.offerDecisioning", "com.adobe.eventType.places",
        "com.adobe.eventType.rulesEngine", "com.adobe.eventType.signal", "com.adobe.eventType.system",
        "com.adobe.eventType.target", "com.adobe.eventType.userProfile", "com.adobe.eventType._wildcard_",
    ]

    /// Event sources the reference and its extensions dispatch.
    static let eventSources = [
        "com.adobe.eventSource.applicationClose", "com.adobe.eventSource.applicationLaunch",
        "com.adobe.eventSource.booted", "com.adobe.eventSource.os", "com.adobe.eventSource.requestContent",
        "com.adobe.eventSource.requestIdentity", "com.adobe.eventSource.requestProfile",
        "com.adobe.eventSource.requestReset", "com.adobe.eventSource.responseContent",
        "com.adobe.eventSource.responseIdentity", "com.adobe.eventSource.responseProfile",
        "com.adobe.eventSource.sharedState", "com.adobe.eventSource.updateConsent",
        "com.adobe.eventSource.updateIdentity", "com.adobe.eventSource._wildcard_",
    ]

    /// The keys of each place of the rules format, with their meaning.
    static let topKeys: [(String, String)] = [
        ("version", "the rule set's version (Launch `version`)"),
        ("dataElements", "named key paths: `%name%` in matcher keys, `{%%name%%}` in tokens"),
        ("rules", "the rules, evaluated in order for every event"),
    ]
    static let ruleKeys: [(String, String)] = [
        ("id", "the rule's id, unique in the workspace; tests name rules by it"),
        ("name", "a name for people"),
        ("description", "what the rule is for"),
        ("enabled", "false: the rule is kept but never runs"),
        ("meta", "Launch metadata (`reEvaluate: true` re-runs the rule after rules reload)"),
        ("when", "the condition: `all`, `any`, a matcher `{key: …, eq: …}`, `history` or `group`"),
        ("then", "the consequences, applied in order when the condition holds"),
    ]
    static let conditionKeys: [(String, String)] = [
        ("key", "a matcher: the key path read (xdm.…, ~type, ~state.<ext>/<path>, %element%)"),
        ("all", "every condition of the list holds (Launch group, logic and)"),
        ("any", "one condition of the list holds (Launch group, logic or)"),
        ("history", "a count of matching events in history compared with a value"),
        ("group", "the Launch form of a group: logic and conditions"),
    ]
    static let matcherExtraKeys: [(String, String)] = [
        ("values", "the values, with `matcher:` (the Launch form)"),
        ("matcher", "the matcher code, with `values:` (the Launch form)"),
    ]
    static let historyConditionKeys: [(String, String)] = [
        ("events", "the events counted: each a mapping of flattened keys to values"),
        ("matcher", "how the count compares with `value`"),
        ("value", "the count compared with"),
        ("from", "start of the window, epoch milliseconds"),
        ("to", "end of the window, epoch milliseconds"),
        ("searchType", "any, ordered or mostRecent"),
    ]
    static let consequenceKeys: [(String, String)] = [
        ("id", "the consequence's id"),
        ("add", "data merged into the event, keeping values already there"),
        ("mod", "data merged into the event, overwriting; null deletes"),
        ("dispatch", "a new event: type, source, action (copy or new) and data"),
        ("history", "records the event in history: operation and content"),
        ("type", "a Launch consequence type for the host (url, pb, iam, schema, …)"),
        ("detail", "the detail of a Launch consequence type"),
    ]
    static let dispatchKeys: [(String, String)] = [
        ("type", "the dispatched event's type"), ("source", "the dispatched event's source"),
        ("action", "copy: the triggering event's data; new: `data`"), ("data", "the new event's data (action new)"),
    ]
    static let historyConsequenceKeys: [(String, String)] = [
        ("operation", "insert or insertIfNotExists"), ("content", "the flattened keys recorded"),
    ]
    // Launch's `rules.json`, keys by place (the loader's sets, `LaunchRulesLoader`, are what it accepts;
    // `VocabularyTests` checks these against them).
    static let launchRootKeys: [(String, String)] = [
        ("version", "the rule set's version"), ("rules", "the rules, evaluated in order for every event"),
    ]
    static let launchRuleKeys: [(String, String)] = [
        ("condition", "the condition: a group, a matcher or a historical search"),
        ("consequences", "the consequences, applied in order when the condition holds"),
        ("meta", "metadata (`reEvaluate: true` re-runs the rule after rules reload)"),
        ("id", "the rule's id (RuleKit's field; tests name rules by it)"), ("name", "a name for people (RuleKit's field)"),
        ("description", "what the rule is for (RuleKit's field)"), ("enabled", "false: the rule is kept but never runs (RuleKit's field)"),
    ]
    static let launchConditionKeys: [(String, String)] = [
        ("type", "group, matcher or historical"), ("definition", "what the condition tests, by its type"),
    ]
    static let launchDefinitionKeys: [(String, String)] = [
        ("logic", "a group's logic: and, or"), ("conditions", "a group's conditions"),
        ("key", "a matcher's key path (xdm.…, ~type, ~state.<ext>/<path>)"), ("matcher", "a matcher's code (eq, ne, gt, …)"),
        ("values", "a matcher's values"), ("events", "a historical search's events: each flattened keys to values"),
        ("value", "the count a historical search compares with"), ("from", "start of a historical window, epoch milliseconds"),
        ("to", "end of a historical window, epoch milliseconds"), ("searchType", "any, ordered or mostRecent"),
    ]
    static let launchConsequenceKeys: [(String, String)] = [
        ("id", "the consequence's id"), ("type", "add, mod, dispatch, schema, or a type for the host (url, pb, iam, …)"),
        ("detail", "the consequence's detail, by its type"),
    ]
    static let launchDetailKeys: [(String, String)] = [
        ("eventdata", "add and mod: the data merged into the event"),
        ("type", "dispatch: the new event's type"), ("source", "dispatch: the new event's source"),
        ("eventdataaction", "dispatch: copy (the triggering event's data) or new (`eventdata`)"),
        ("id", "schema: the consequence's schema id"), ("schema", "schema: the schema's URI (event history operation)"),
        ("data", "schema: the operation and content"),
    ]
    static let launchConditionTypes: [(String, String)] = [
        ("group", "conditions joined by `logic`"), ("matcher", "a key compared with values"),
        ("historical", "a count of matching events in history compared with `value`"),
    ]
    static let launchConsequenceTypes: [(String, String)] = [
        ("add", "merge `eventdata` into the event, keeping values already there"),
        ("mod", "merge `eventdata` into the event, overwriting; null deletes"),
        ("dispatch", "dispatch a new event"), ("schema", "a schema consequence (event history operations)"),
        ("url", "a postback URL for the host"), ("pb", "a postback for the host"), ("pii", "a PII postback for the host"),
        ("csp", "a client-side personalization for the host"), ("iam", "an in-app message for the host"),
    ]

    static let dataElementKeys: [(String, String)] = [
        ("path", "the key path the element names"), ("type", "string, int, double, bool or any"),
        ("description", "what the element holds"),
    ]
    static let testFileKeys: [(String, String)] = [
        ("rules", "the rules files tested (default: the file of the same name)"),
        ("states", "shared states of every case, by extension"), ("xdmStates", "XDM shared states of every case"),
        ("history", "events in history before every case"), ("cases", "the test cases"),
    ]
    static let testCaseKeys: [(String, String)] = [
        ("name", "the case's name"), ("states", "shared states of this case"), ("xdmStates", "XDM shared states of this case"),
        ("history", "events in history before this case"), ("events", "the events sent, in order"),
        ("expect", "what the last event must lead to"),
    ]
    static let testEventKeys: [(String, String)] = [
        ("name", "the event's name"), ("type", "the event's type"), ("source", "the event's source"),
        ("data", "the event's data"), ("mask", "the event's history mask"), ("expect", "what this event must lead to"),
    ]
    static let expectKeys: [(String, String)] = [
        ("fired", "the ids of exactly the rules that fire"), ("notFired", "ids of rules that must not fire"),
        ("data", "the event's data after the rules, whole"), ("dataContains", "members the data must contain"),
        ("dispatched", "the events dispatched: type, source, data"),
    ]
    static let testHistoryKeys: [(String, String)] = [
        ("name", "the event's name"), ("type", "the event's type"), ("source", "the event's source"),
        ("data", "the event's data"), ("ageSeconds", "how long ago it happened"),
    ]

    /// The meaning of a key of the format, wherever it stands (for hover).
    static func keyMeaning(_ key: String) -> String? {
        for table in [topKeys, ruleKeys, conditionKeys, consequenceKeys, dispatchKeys, historyConsequenceKeys, historyConditionKeys] {
            if let m = table.first(where: { $0.0 == key }) { return m.1 }
        }
        return nil
    }
}
