/// The reference's event-data merge (`add` merges without overwrite, `mod` with it).
///
/// 1. Keys on both sides: objects merge recursively, arrays concatenate (old + new, whatever the flag),
///    anything else keeps the old value unless `overwrite`. New keys are added.
/// 2. A key containing `[*]` is removed; the text before the first `[*]` names an array, and an object
///    value is merged into each object element of it. Every other object value is re-merged with `{}`,
///    which applies this step and the next at every depth of nested objects (not inside arrays).
/// 3. Null values are removed.
public enum EventDataMerge {
    /// `from` merged into `to` as described above.
    public static func merge(to: ValueObject, from: ValueObject, overwrite: Bool) -> ValueObject {
        var m = to
        for (k, new) in from {
            guard let i = m.index(forKey: k) else {
                m.appendNew(key: k, value: new)
                continue
            }
            switch (m.value(at: i), new) {
            case (.object(let a), .object(let b)):
                m.setValue(.object(merge(to: a, from: b, overwrite: overwrite)), at: i)
            case (.array(let a), .array(let b)):
                m.setValue(.array(a + b), at: i)
            default:
                if overwrite { m.setValue(new, at: i) }
            }
        }
        var result = ValueObject(minimumCapacity: m.count)
        var wildcards: [(String, Value)] = []
        for (k, v) in m {
            if let prefix = wildcardPrefix(k) {
                wildcards.append((prefix, v))
                continue
            }
            if case .null = v { continue }
            if case .object(let o) = v {
                result.appendNew(key: k, value: .object(merge(to: o, from: [:], overwrite: overwrite)))
            } else {
                result.appendNew(key: k, value: v)
            }
        }
        for (prefix, w) in wildcards {
            guard case .object(let wo) = w, let i = result.index(forKey: prefix),
                case .array(let items) = result.value(at: i)
            else { continue }
            let merged: [Value] = items.map { item in
                guard case .object(let eo) = item else { return item }
                return .object(merge(to: eo, from: wo, overwrite: overwrite))
            }
            result.setValue(.array(merged), at: i)
        }
        return result
    }

    /// The text before the first `[*]` of `key`, or nil when it has none (every key of every merged object
    /// is asked).
    static func wildcardPrefix(_ key: String) -> String? {
        var key = key
        guard let end = key.withUTF8({ wildcardStart($0) }) else { return nil }
        return String(decoding: key.utf8.prefix(end), as: UTF8.self)
    }
}
