public import RuleKitCore

extension Value {
    /// The value at a dotted path (`a.b.0.c`; numeric segments index arrays), or nil.
    ///
    /// - Parameter path: the dotted path.
    /// - Returns: the value there, or nil.
    public func value(atPath path: String) -> Value? {
        var cur: Value = self
        for seg in path.split(separator: ".", omittingEmptySubsequences: false) {
            switch cur {
            case .object(let o):
                guard let next = o[String(seg)] else { return nil }
                cur = next
            case .array(let a):
                guard let i = Int(seg), a.indices.contains(i) else { return nil }
                cur = a[i]
            default:
                return nil
            }
        }
        return cur
    }

    /// Sets (or with nil removes) the value at a dotted path, creating objects on the way.
    ///
    /// - Parameters:
    ///   - new: the value (nil: remove).
    ///   - path: the dotted path.
    public mutating func setValue(_ new: Value?, atPath path: String) {
        let segs = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        self = Value.setting(self, segs[...], new)
    }

    private static func setting(_ v: Value, _ segs: ArraySlice<String>, _ new: Value?) -> Value {
        guard let head = segs.first else { return new ?? .null }
        let rest = segs.dropFirst()
        switch v {
        case .array(var a):
            if let i = Int(head), a.indices.contains(i) {
                if rest.isEmpty, new == nil { a.remove(at: i) } else { a[i] = setting(a[i], rest, new) }
                return .array(a)
            }
            return v
        case .object(var o):
            if rest.isEmpty { o[head] = new } else { o[head] = setting(o[head] ?? .object([:]), rest, new) }
            return .object(o)
        default:
            var o = ValueObject()
            if rest.isEmpty { o[head] = new } else { o[head] = setting(.object([:]), rest, new) }
            return .object(o)
        }
    }
}
