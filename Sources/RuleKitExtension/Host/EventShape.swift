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

    /// Where an event object's members are (-1: absent), found in one pass: what the check looks at and
    /// what the event is built from (`EventJSON.event(_:members:dataText:document:)`), so neither looks a
    /// member up by its key.
    public struct Members: Sendable, Equatable {
        /// The positions of `id`, `name`, `type`, `source`, `data` and `mask` in the object.
        public var id = -1, name = -1, type = -1, source = -1, data = -1, mask = -1
        /// The position of the first member, in name order, that an event does not have. A position, not
        /// the name: the struct is then plain data, copied without a retain.
        public var unknown = -1

        /// The members of `o`.
        ///
        /// Per event, on the path of every batch (every line `run` and `match` read): each member is known by
        /// its length and first byte before one compare, noted by position and looked at in place; copying
        /// each value out (a retain and a release per member) and listing the members to check in array
        /// literals (two arrays per event) cost `match` 2-3% of its CPU. Nothing is allocated unless a member
        /// is unknown (the first in name order is named, whatever the object's order).
        ///
        /// - Parameter o: an input event's object.
        public init(of o: ValueObject) {
            for i in 0..<o.count {
                let key = o.key(at: i)
                switch Member(key) {
                case .type: type = i
                case .source: source = i
                case .id: id = i
                case .name: name = i
                case .data: data = i
                case .mask: mask = i
                case nil: if unknown < 0 || key < o.key(at: unknown) { unknown = i }
                }
            }
        }
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
        return problem(o, Members(of: o), dataInTape: dataInTape)
    }

    /// The first problem of the event object `o`, whose members are `m`, or nil when it is an event.
    ///
    /// - Parameters:
    ///   - o: the input line's object.
    ///   - m: its members (`Members(of: o)`).
    ///   - dataInTape: whether the reader took `data` into a tape.
    /// - Returns: the first problem, or nil.
    public static func problem(_ o: ValueObject, _ m: Members, dataInTape: Bool = false) -> Problem? {
        let (type, source, id, name, data, mask) = (m.type, m.source, m.id, m.name, m.data, m.mask)
        if m.unknown >= 0 {
            let key = o.key(at: m.unknown)
            return Problem(
                message: "unknown member '\(key)' (an event has \(members.joined(separator: ", ")))", pointer: "/" + escape(key))
        }
        if let p = required(string: "type", at: type, in: o) ?? required(string: "source", at: source, in: o) { return p }
        if let p = optional(string: "id", at: id, in: o) ?? optional(string: "name", at: name, in: o) { return p }
        if !dataInTape, data >= 0, !o.value(at: data).isObject {
            return Problem(message: "'data' must be an object, not \(kind(o.value(at: data)))", pointer: "/data")
        }
        if mask >= 0 {
            guard case .array(let items) = o.value(at: mask) else {
                return Problem(message: "'mask' must be an array of strings, not \(kind(o.value(at: mask)))", pointer: "/mask")
            }
            for (i, item) in items.enumerated() where !item.isString {
                return Problem(message: "'mask' must hold strings, not \(kind(item))", pointer: "/mask/\(i)")
            }
        }
        return nil
    }

    /// The problem of member `key`, at `position` of `o` (-1: absent), which must be a string.
    private static func required(string key: String, at position: Int, in o: ValueObject) -> Problem? {
        guard position >= 0 else { return Problem(message: "an event needs a string '\(key)'", pointer: "/" + key) }
        return optional(string: key, at: position, in: o)
    }

    /// The problem of member `key`, at `position` of `o` (-1: absent, which is no problem), which must be a
    /// string when present.
    private static func optional(string key: String, at position: Int, in o: ValueObject) -> Problem? {
        guard position >= 0, !o.value(at: position).isString else { return nil }
        return Problem(message: "'\(key)' must be a string, not \(kind(o.value(at: position)))", pointer: "/" + key)
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

extension Value {
    /// Whether it is a string (its kind alone: nothing is copied out).
    fileprivate var isString: Bool {
        if case .string = self { return true }
        return false
    }

    /// Whether it is an object.
    fileprivate var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}
