/// Where the cursor stands in a JSON text (a Launch `rules.json`): the member keys above it, and whether it
/// is at a member's key or at its value. Read by one pass over the bytes before the cursor that follows
/// strings, brackets, colons and commas only, because the text being typed rarely parses.
enum JSONCursor {
    /// One open container.
    struct Frame {
        var isObject: Bool
        /// The member whose value is being read (after its colon), in an object.
        var key: String?
        /// The keys already in the object.
        var keys: [String] = []
        /// Whether the next string is a key (after `{` or `,` in an object).
        var expectingKey: Bool
    }

    /// The context at `offset` of `bytes`: parents as `CursorContext` has them (keys, and `-` for an
    /// element of an array), the slot, and whether the cursor is inside a string. Nil outside any object, and
    /// in an array that is no member's value.
    static func at(_ bytes: ArraySlice<UInt8>, offset: Int) -> (parents: [String], slot: CursorContext.Slot, inString: Bool)? {
        var frames: [Frame] = []
        var inString = false
        var escaped = false
        var text: [UInt8] = []
        var lastString: String?
        let end = min(max(offset, bytes.startIndex), bytes.endIndex)
        var i = bytes.startIndex
        while i < end {
            let c = bytes[i]
            i += 1
            if inString {
                if escaped {
                    escaped = false
                } else if c == UInt8(ascii: "\\") {
                    escaped = true
                } else if c == UInt8(ascii: "\"") {
                    inString = false
                    lastString = String(decoding: text, as: UTF8.self)
                    continue
                }
                // Only a key's text is kept (a value's may be long and is never needed).
                if frames.last?.expectingKey == true { text.append(c) }
                continue
            }
            switch c {
            case UInt8(ascii: "\""):
                inString = true
                text.removeAll(keepingCapacity: true)
            case UInt8(ascii: ":"):
                guard var f = frames.popLast() else { continue }
                if f.isObject, f.expectingKey, let k = lastString {
                    f.key = k
                    f.keys.append(k)
                    f.expectingKey = false
                }
                frames.append(f)
            case UInt8(ascii: ","):
                guard var f = frames.popLast() else { continue }
                if f.isObject {
                    f.expectingKey = true
                    f.key = nil
                }
                frames.append(f)
            case UInt8(ascii: "{"):
                frames.append(Frame(isObject: true, expectingKey: true))
            case UInt8(ascii: "["):
                frames.append(Frame(isObject: false, expectingKey: false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = frames.popLast()
            default:
                break
            }
        }
        guard let top = frames.last else { return nil }
        let parents = frames.dropLast().map { $0.isObject ? ($0.key ?? "") : "-" }
        if !top.isObject {
            // An element of an array is a value of the member that holds the array (`"values": ["…`).
            guard frames.count >= 2, let key = frames[frames.count - 2].key else { return nil }
            return (Array(parents.dropLast()), .value(key: key, siblings: [:]), inString)
        }
        if top.expectingKey { return (parents, .key(siblings: top.keys), inString) }
        return (parents, .value(key: top.key ?? "", siblings: [:]), inString)
    }
}
