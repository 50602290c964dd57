// What an input event must be — one check for every reader of events: `POST /v1/events` (before anything
// of the batch is accepted), `rulekit run`, `match`, `report` and `explain`. A member of the wrong type or a
// name nobody reads is refused with where it is, never replaced by a default (`{"name": 1, "data": "str"}`
// would become an event named "event" with no data).
internal import Foundation
public import RuleKitCore

/// The shape of an input event: `{"id"?, "name"?, "type", "source", "data"?, "mask"?}`.
public enum EventShape {
    /// The members an event may have.
    public static let members = ["id", "name", "type", "source", "data", "mask"]

    /// What is wrong with one event: the message and the JSON pointer of the member, within the event.
    public struct Problem: Sendable, Equatable {
        /// What is wrong.
        public var message: String
        /// The member's JSON pointer within the event ("" for the event itself).
        public var pointer: String
    }

    /// The first problem of `value`, or nil when it is an event. `dataInTape`: the reader took the event's
    /// `data` into a tape (it is then an object, and is not in `value`).
    ///
    /// - Parameters:
    ///   - value: the input line's value.
    ///   - dataInTape: whether the reader took `data` into a tape.
    /// - Returns: the first problem, or nil.
    public static func problem(_ value: Value, dataInTape: Bool = false) -> Problem? {
        guard case .object(let o) = value else {
            return Problem(message: "an event must be a JSON object, not \(kind(value))", pointer: "")
        }
        // Per event, on the path of every batch (every line `run` and `match` read): one pass over the
        // members, each known by its length and first byte before a compare, no look-up by key, no sorting,
        // no allocation unless something is wrong (the first unknown member in name order is named, whatever
        // the object's order).
        var unknown: String?
        var type: Value?
        var source: Value?
        var id: Value?
        var name: Value?
        var data: Value?
        var mask: Value?
        for (key, v) in o {
            switch Member(key) {
            case .type: type = v
            case .source: source = v
            case .id: id = v
            case .name: name = v
            case .data: data = v
            case .mask: mask = v
            case nil: if unknown.map({ key < $0 }) ?? true { unknown = key }
            }
        }
        if let key = unknown {
            return Problem(
                message: "unknown member '\(key)' (an event has \(members.joined(separator: ", ")))", pointer: "/" + escape(key))
        }
        for (key, v) in [("type", type), ("source", source)] {
            guard let v else { return Problem(message: "an event needs a string '\(key)'", pointer: "/" + key) }
            guard case .string = v else { return Problem(message: "'\(key)' must be a string, not \(kind(v))", pointer: "/" + key) }
        }
        for (key, v) in [("id", id), ("name", name)] {
            if let v, v.stringValue == nil {
                return Problem(message: "'\(key)' must be a string, not \(kind(v))", pointer: "/" + key)
            }
        }
        if !dataInTape, let v = data, v.objectValue == nil {
            return Problem(message: "'data' must be an object, not \(kind(v))", pointer: "/data")
        }
        if let v = mask {
            guard case .array(let items) = v else {
                return Problem(message: "'mask' must be an array of strings, not \(kind(v))", pointer: "/mask")
            }
            for (i, item) in items.enumerated() where item.stringValue == nil {
                return Problem(message: "'mask' must hold strings, not \(kind(item))", pointer: "/mask/\(i)")
            }
        }
        return nil
    }

    /// The members an event may have, told apart by length and first byte before one compare.
    enum Member {
        case id, name, type, source, data, mask

        init?(_ key: String) {
            let utf8 = key.utf8
            switch (utf8.count, utf8.first) {
            case (2, UInt8(ascii: "i")) where key == "id": self = .id
            case (4, UInt8(ascii: "n")) where key == "name": self = .name
            case (4, UInt8(ascii: "t")) where key == "type": self = .type
            case (6, UInt8(ascii: "s")) where key == "source": self = .source
            case (4, UInt8(ascii: "d")) where key == "data": self = .data
            case (4, UInt8(ascii: "m")) where key == "mask": self = .mask
            default: return nil
            }
        }
    }

    /// "a number", "an array", ...: a value's kind, for messages.
    static func kind(_ v: Value) -> String {
        switch v {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A key as a JSON pointer token (RFC 6901: `~` as `~0`, `/` as `~1`).
    static func escape(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
