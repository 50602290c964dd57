internal import Foundation
public import RuleKitCore

/// Converts a value to the type the schema gives its path (a token renders `"250.75"`; the schema wants
/// a number), or says why not.
public enum XDMCoercion {
    /// Why a value could not be coerced.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case unknownPath(String)
        case notConvertible(path: String, value: String, type: String)

        /// The reason, for people.
        public var description: String {
            switch self {
            case .unknownPath(let p): "no XDM path '\(p)' in the schema"
            case .notConvertible(let p, let v, let t): "\(v) at '\(p)' cannot be converted to \(t)"
            }
        }
    }

    /// `value` as the schema's type at `path`.
    ///
    /// - Parameters:
    ///   - value: the value found.
    ///   - path: where it is, as the catalog names leaves.
    ///   - catalog: the schema's leaves.
    /// - Returns: the value coerced, or why it cannot be.
    public static func coerce(_ value: Value, at path: String, in catalog: XDMPathCatalog) -> Result<Value, Failure> {
        guard let leaf = catalog.leaf(path) else { return .failure(.unknownPath(path)) }
        return coerce(value, to: leaf).mapError { _ in
            .notConvertible(path: path, value: JSONWriter.string(value), type: leaf.format.map { "\(leaf.type) (\($0))" } ?? leaf.type)
        }
    }

    static func coerce(_ value: Value, to leaf: XDMPath) -> Result<Value, Failure> {
        let fail = Result<Value, Failure>.failure(.unknownPath(leaf.path))
        let types = leaf.type.split(separator: "|").map(String.init)
        for type in types {
            switch (type, value) {
            case ("string", .string(let s)):
                if let f = leaf.format, f == "date-time", !Formats.dateTime(s) {
                    if let d = Double(s), d.isFinite {
                        // Epoch seconds or milliseconds → RFC 3339.
                        let seconds = d > 1e11 ? d / 1000 : d
                        return .success(.string(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds))))
                    }
                    continue
                }
                return .success(value)
            case ("string", .int), ("string", .double), ("string", .bool):
                return .success(.string(SwiftText.describe(value)))
            case ("integer", .int): return .success(value)
            case ("integer", .double(let d)) where d.rounded() == d && abs(d) < 9e18: return .success(.int(Int64(d)))
            case ("integer", .string(let s)):
                if let i = Int64(s.trimmingCharacters(in: .whitespaces)) { return .success(.int(i)) }
                if let d = Double(s), d.rounded() == d, abs(d) < 9e18 { return .success(.int(Int64(d))) }
            case ("number", .int), ("number", .double): return .success(value)
            case ("number", .string(let s)):
                if let i = Int64(s) { return .success(.int(i)) }
                if let d = Double(s.trimmingCharacters(in: .whitespaces)), d.isFinite { return .success(.double(d)) }
            case ("boolean", .bool): return .success(value)
            case ("boolean", .string(let s)):
                switch s.lowercased() {
                case "true", "1": return .success(.bool(true))
                case "false", "0": return .success(.bool(false))
                default: break
                }
            case ("boolean", .int(let i)) where i == 0 || i == 1: return .success(.bool(i == 1))
            case (_, .null): return .success(.null)
            default: break
            }
        }
        return fail
    }
}

/// Text of a scalar as tokens render it.
enum SwiftText {
    static func describe(_ v: Value) -> String {
        switch v {
        case .string(let s): s
        case .int(let i): String(i)
        case .double(let d): d.description
        case .bool(let b): b ? "true" : "false"
        default: JSONWriter.string(v)
        }
    }
}
