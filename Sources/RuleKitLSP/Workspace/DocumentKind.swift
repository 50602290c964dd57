internal import Foundation
internal import RuleKitSources

/// What a file of the workspace is to the server.
public enum DocumentKind: Sendable, Equatable {
    /// A rules file (RuleKit's YAML format or Launch `rules.json`).
    case rules
    /// A rule test file (`*.test.yaml`).
    case ruleTests
    /// A schema of the workspace's `Schemas/` folder: a change re-checks every open file.
    case schema
    /// Anything else: left alone.
    case other

    /// The kind of the file at `path`, in a workspace whose schema folder is `schemas`.
    static func of(_ path: String, schemas: String?) -> DocumentKind {
        if let schemas, path.hasPrefix(schemas.hasSuffix("/") ? schemas : schemas + "/") {
            return path.hasSuffix(".json") ? .schema : .other
        }
        let name = (path as NSString).lastPathComponent
        if RuleSources.isTestFile(name) { return .ruleTests }
        if RuleSources.isRulesFile(name) { return .rules }
        return .other
    }
}

/// `file://` URIs to paths and back (the only scheme this server reads; others are left alone).
enum FileURI {
    static func path(_ uri: String) -> String? {
        guard uri.hasPrefix("file://") else { return nil }
        var rest = uri.dropFirst(7)
        // `file://host/path`: only the local host (empty or `localhost`) is read.
        if rest.hasPrefix("localhost/") { rest = rest.dropFirst(9) }
        guard rest.hasPrefix("/") else { return nil }
        return String(rest).removingPercentEncoding
    }

    static func uri(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "#?[]@!$&'()*+,;=")
        return "file://" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path)
    }
}
