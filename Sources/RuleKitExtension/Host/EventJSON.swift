// Events as JSON objects, the one shape `rulekit run` writes and `rulekit serve` reads and answers with.
internal import Foundation
public import RuleKitCore

/// Converts between events and their JSON-lines shape: in, `{"name","type","source","data","mask"}`; out,
/// `{"id","name","type","source","data","parentID","responseID"}`.
public enum EventJSON {
    /// The event an input object describes (missing fields: name `event`, empty type and source, no data).
    public static func event(_ o: ValueObject) -> Event {
        var e = Event(
            name: o["name"]?.stringValue ?? "event", type: o["type"]?.stringValue ?? "", source: o["source"]?.stringValue ?? "",
            data: o["data"]?.objectValue)
        if case .array(let m)? = o["mask"] { e.mask = m.compactMap(\.stringValue) }
        return e
    }

    /// The output object of a delivered event.
    public static func object(_ e: Event) -> ValueObject {
        var o = ValueObject(minimumCapacity: 7)
        o["id"] = .string(e.id.uuidString)
        o["name"] = .string(e.name)
        o["type"] = .string(e.type)
        o["source"] = .string(e.source)
        if let d = e.data { o["data"] = .object(d) }
        if let p = e.parentID { o["parentID"] = .string(p.uuidString) }
        if let r = e.responseID { o["responseID"] = .string(r.uuidString) }
        return o
    }
}
