public import Foundation

/// Bridges between `Value` and the Foundation types host apps already hold (`[String: Any]`, `Data`).
extension Value {
    /// Converts a Foundation object graph (`NSNull`, `Bool`, numbers, `String`, arrays, dictionaries).
    ///
    /// - Throws: `DiagnosticError` naming the path of a value that has no JSON form (a `Date`, say).
    public init(foundation object: Any?) throws(DiagnosticError) {
        self = try Value.bridge(object, path: [])
    }

    private static func bridge(_ object: Any?, path: [PathComponent]) throws(DiagnosticError) -> Value {
        guard let object else { return .null }
        switch object {
        case is NSNull: return .null
        case let b as Bool where !(object is NSNumber) || isBoolNumber(object as! NSNumber): return .bool(b)
        case let n as NSNumber: return number(n)
        case let s as String: return .string(s)
        case let i as Int: return .int(Int64(i))
        case let d as Double: return .double(d)
        case let a as [Any?]:
            var out: [Value] = []
            out.reserveCapacity(a.count)
            for (i, e) in a.enumerated() { out.append(try bridge(e, path: path + [.index(i)])) }
            return .array(out)
        case let d as [String: Any?]:
            var o = ValueObject(minimumCapacity: d.count)
            for k in d.keys.sorted() { o.appendNew(key: k, value: try bridge(d[k]!, path: path + [.key(k)])) }
            return .object(o)
        case let v as Value: return v
        default:
            throw DiagnosticError(
                .error(
                    "value.unsupported-type",
                    "\(type(of: object)) has no JSON form", pointer: path.jsonPointer))
        }
    }

    private static func isBoolNumber(_ n: NSNumber) -> Bool {
        #if canImport(Darwin)
            return CFGetTypeID(n) == CFBooleanGetTypeID()
        #else
            // corelibs Foundation stores booleans as char-typed numbers.
            let t = String(cString: n.objCType)
            return t == "B" || (t == "c" && (n.int8Value == 0 || n.int8Value == 1))
        #endif
    }

    private static func number(_ n: NSNumber) -> Value {
        switch String(cString: n.objCType) {
        case "d", "f": return .double(n.doubleValue)
        case "Q":
            let u = n.uint64Value
            return u <= UInt64(Int64.max) ? .int(Int64(u)) : .double(Double(u))
        default: return .int(n.int64Value)
        }
    }

    /// The Foundation form: `NSNull`, `Bool`, `Int64`, `Double`, `String`, `[Any]`, `[String: Any]`.
    public var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let b): b
        case .int(let i): i
        case .double(let d): d
        case .string(let s): s
        case .array(let a): a.map(\.foundationObject)
        case .object(let o):
            Dictionary(o.map { ($0.key, $0.value.foundationObject) }, uniquingKeysWith: { _, b in b })
        }
    }

    /// The value as a `[String: Any]`, or nil when it is not an object.
    public var foundationDictionary: [String: Any]? { objectValue != nil ? foundationObject as? [String: Any] : nil }

    /// Parses JSON bytes.
    public init(jsonData: Data, limits: ReaderLimits = .default) throws(DiagnosticError) {
        self = try JSONReader.read([UInt8](jsonData), limits: limits).value
    }

    /// Compact (or pretty) JSON bytes.
    public func jsonData(options: JSONWriter.Options = .compact) -> Data {
        Data(JSONWriter.string(self, options: options).utf8)
    }
}
