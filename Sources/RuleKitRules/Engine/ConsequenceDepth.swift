package import RuleKitCore

/// How deep an event sits in a chain of rules-consequence events: the number of them in a row, parent to
/// child, that end with it (0 for any other event). The bound on such chains (`RulesExtension`'s
/// `consequenceChainLimit`) reads it.
///
/// Why a number carried by the event: the bound used to keep the depth of the last 65,536 consequence
/// events in a table by id, and three look-ups in a table of megabytes for every consequence event cost
/// 2–3% of a service whose rules record history (each record emits one). The engine stamps the events it
/// makes (`stamp`); `Event.createChainedEvent` and `createResponseEvent` hand a parent's stamp to the
/// events other extensions make from it, so a chain that passes through another extension is counted too.
/// A consequence-typed event made some other way (no stamp, no parent's stamp) counts as the first of its chain.
package enum ConsequenceDepth {
    /// Whether `e` is a rules-consequence event that belongs to a chain (it names a parent).
    package static func isCounted(_ e: Event) -> Bool {
        e.parentID != nil && e.type == RulesEventNames.rulesEngineType && e.source == RulesEventNames.responseContent
    }

    /// The depth of `e`: its stamp, else its parent's stamp plus one, for a rules-consequence event; 0 for
    /// any other.
    package static func of(_ e: Event) -> Int {
        guard isCounted(e) else { return 0 }
        return e.chainDepth > 0 ? Int(e.chainDepth) : Int(e.parentChainDepth) + 1
    }

    /// Stamps `e`, made by the engine while it processed `trigger`, with its depth: the trigger's plus one
    /// when `e` is a rules-consequence event (any other keeps 0). Called on a new event, so the stamp is
    /// set in place.
    static func stamp(_ e: inout Event, trigger: Event) {
        guard isCounted(e) else { return }
        e.chainDepth = Int32(clamping: of(trigger) + 1)
    }
}
