internal import Foundation
internal import RuleKitCore

/// What each consequence type does to the event being processed, as in the reference.
enum Consequences {
    /// Runs one consequence on `current` (the progressively processed event) and returns the new current
    /// event. Tokens resolve against the original trigger; produced events go to `out`.
    static func run(
        _ c: PlannedConsequence, on current: Event, trigger: Event, resolver r: inout Resolver,
        chain: Int, chainCounts: inout [UUID: Int], runtime: any RulesRuntime,
        out: inout [Event]
    ) -> Event {
        let rendered = Evaluator.render(c, &r)
        let detail = rendered.detail
        switch c.kind {
        case .add, .mod:
            guard case .object(let eventdata)? = detail["eventdata"] else { return current }
            // Data kept as a tape gets the merge laid over it: no tree is made of it here.
            return current.merging(eventdata, overwrite: c.kind == .mod)
        case .dispatch:
            guard chain < RulesEngine.maxChainedConsequenceCount else { return current }
            guard case .string(let type)? = detail["type"], case .string(let source)? = detail["source"],
                case .string(let action)? = detail["eventdataaction"]
            else { return current }
            let data: ValueObject?
            switch action {
            case "copy": data = current.data
            case "new":
                if case .object(var o)? = detail["eventdata"] {
                    for k in o.keys where o[k] == .null { o[k] = nil }
                    data = o
                } else {
                    data = nil
                }
            default: return current
            }
            var e = trigger.createChainedEvent(name: RulesEventNames.dispatchEventName, type: type, source: source, data: data)
            ConsequenceDepth.stamp(&e, trigger: trigger)
            chainCounts[e.id] = chain + 1
            out.append(e)
            return current
        case .schema:
            guard case .string(let schema)? = detail["schema"], case .object(let schemaData)? = detail["data"],
                case .string = detail["id"]
            else { return current }
            if schema == RulesEventNames.historySchema {
                history(rendered, serial: c.serial, schemaData: schemaData, trigger: trigger, runtime: runtime, resolver: &r, out: &out)
            } else {
                out.append(consequenceEvent(rendered, serial: c.serial, trigger: trigger, resolver: &r))
            }
            return current
        case .other:
            out.append(consequenceEvent(rendered, serial: c.serial, trigger: trigger, resolver: &r))
            return current
        }
    }

    /// The generic rules-consequence event for `c`, the rendering of planned consequence `serial`: its data
    /// and text are shared with the last one made for the same rendering (`Renderings`).
    static func consequenceEvent(_ c: Consequence, serial: Int, trigger: Event, resolver r: inout Resolver) -> Event {
        let (data, text) = r.renderings.eventData(c, serial: serial)
        var e = trigger.createChainedEvent(
            name: RulesEventNames.consequenceEventName, type: RulesEventNames.rulesEngineType,
            source: RulesEventNames.responseContent, data: data)
        e.setDataText(text)
        ConsequenceDepth.stamp(&e, trigger: trigger)
        return e
    }

    /// The event-history operation of a `schema` consequence.
    static func history(
        _ c: Consequence, serial: Int, schemaData: ValueObject, trigger: Event, runtime: any RulesRuntime,
        resolver r: inout Resolver, out: inout [Event]
    ) {
        guard case .string(let operation)? = schemaData["operation"],
            operation == "insert" || operation == "insertIfNotExists",
            case .object(let content)? = schemaData["content"], !content.isEmpty
        else { return }
        let historyEvent = trigger.createChainedEvent(
            name: RulesEventNames.dispatchEventName, type: RulesEventNames.rulesEngineType,
            source: RulesEventNames.responseContent, data: content)
        if operation == "insertIfNotExists" {
            let request = HistoryRequest(mask: Flatten.object(content, arrays: true))
            let results = runtime.queryHistory([request], enforceOrder: false)
            guard let first = results.first, first.count == 0 else { return }
        }
        guard runtime.recordHistory(historyEvent) else { return }
        out.append(consequenceEvent(c, serial: serial, trigger: trigger, resolver: &r))
    }
}
