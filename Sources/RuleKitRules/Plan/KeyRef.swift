/// A condition key or token key, resolved once at plan time into what to read.
public enum KeyRef: Sendable, Hashable, CustomStringConvertible {
    case type, source
    case timestampU, timestampZ, timestampP
    case sdkVersion, cacheBust, allURL, allJSON
    /// `~state.<ext>/<path>`: a leaf of a standard shared state.
    case state(extensionName: String, path: FlatPath)
    /// `~xdm.<ext>/<path>`: a leaf of an XDM shared state (RuleKit extension).
    case xdm(extensionName: String, path: FlatPath)
    /// A `~state`/`~xdm` key the reference resolves to nothing (no `/` after the extension name).
    case nothing(String)
    /// A flattened path into the event data.
    case data(FlatPath)

    /// Resolves key text the way the reference's token finder does.
    ///
    /// - Parameter key: the key text.
    /// - Returns: the parsed key.
    public static func parse(_ key: String) -> KeyRef {
        guard key.hasPrefix("~") else { return .data(FlatPath(key)) }
        switch key {
        case "~type": return .type
        case "~source": return .source
        case "~timestampu": return .timestampU
        case "~timestampz": return .timestampZ
        case "~timestampp": return .timestampP
        case "~sdkver": return .sdkVersion
        case "~cachebust": return .cacheBust
        case "~all_url": return .allURL
        case "~all_json": return .allJSON
        default: break
        }
        if key.hasPrefix("~state") || key.hasPrefix("~xdm.") {
            // The reference takes the text after "~state" plus one separator character up to the first
            // '/' as the extension name, the rest as the path; no '/' gives nothing.
            let isState = key.hasPrefix("~state")
            let start = key.index(key.startIndex, offsetBy: isState ? 7 : 5, limitedBy: key.endIndex) ?? key.endIndex
            let rest = key[start...]
            guard let slash = rest.firstIndex(of: "/") else { return .nothing(key) }
            let ext = String(rest[..<slash])
            let path = FlatPath(String(rest[rest.index(after: slash)...]))
            return isState ? .state(extensionName: ext, path: path) : .xdm(extensionName: ext, path: path)
        }
        return .data(FlatPath(key))
    }

    /// The key as written.
    public var description: String {
        switch self {
        case .type: "~type"
        case .source: "~source"
        case .timestampU: "~timestampu"
        case .timestampZ: "~timestampz"
        case .timestampP: "~timestampp"
        case .sdkVersion: "~sdkver"
        case .cacheBust: "~cachebust"
        case .allURL: "~all_url"
        case .allJSON: "~all_json"
        case .state(let e, let p): "~state.\(e)/\(p.raw)"
        case .xdm(let e, let p): "~xdm.\(e)/\(p.raw)"
        case .nothing(let k): k
        case .data(let p): p.raw
        }
    }
}
