// Fetching a rules URL the way the reference SDKs do — a conditional GET from the validators kept with the
// rules in force — with the checks a server needs on top: https only (plain http to loopback, or when the
// host says so), redirects followed one hop at a time, never from https to http, with credentials dropped
// when the host changes, and the body bounded as it is read.
internal import Foundation
public import RuleKitCore

extension DiagnosticCode {
    /// A rules URL that could not be fetched (refused, unreachable, an error status, a body past its bound).
    public static let fetchFailed: DiagnosticCode = "input.fetch-failed"
}

/// What one fetch of a rules URL found.
public enum RulesFetch: Sendable {
    /// A body, new or changed since the validators sent, with the publisher's validators.
    case fetched(RulesCache.Entry)
    /// The publisher answered 304: the rules in force are current.
    case notModified
}

/// A rules URL's publisher, reached through a transport.
public struct RemoteRules: Sendable {
    /// How requests are made.
    public struct Options: Sendable {
        /// Whether plain `http://` is allowed to hosts other than loopback.
        public var allowHTTP = false
        /// The most redirects followed.
        public var maxRedirects = 5
        /// Headers sent to the URL's host (a publisher's credentials): dropped on a redirect to another host,
        /// and never written to a message.
        public var headers: [(name: String, value: String)] = []
        /// The most time to wait for a connection.
        public var connectTimeout: Duration = .seconds(10)
        /// The most time one exchange may take, body included.
        public var timeout: Duration = .seconds(60)
        /// The body's bound: the archive bound.
        public var maxBodyBytes = RuleArchive.Limits.default.maxArchiveBytes

        /// The defaults.
        public init() {}
    }

    /// The network.
    public let transport: any RulesTransport
    /// How requests are made.
    public let options: Options

    /// A publisher reached through `transport`.
    ///
    /// - Parameters:
    ///   - transport: the network.
    ///   - options: how requests are made.
    public init(transport: any RulesTransport, options: Options = Options()) {
        self.transport = transport
        self.options = options
    }

    /// Whether `source` is a rules URL (not a file or folder).
    public static func isURL(_ source: String) -> Bool {
        let s = source.lowercased()
        return s.hasPrefix("https://") || s.hasPrefix("http://")
    }

    /// Why `url` may not be fetched, or nil.
    public func refusal(_ url: String) -> String? {
        guard let u = URLComponents(string: url), let scheme = u.scheme?.lowercased(), let host = u.host, !host.isEmpty else {
            return "'\(Self.redacted(url))' is not an absolute URL"
        }
        switch scheme {
        case "https": return nil
        case "http":
            if options.allowHTTP || Self.isLoopback(host) { return nil }
            return "plain http to '\(host)' is refused (use https, or allow http explicitly)"
        default: return "the scheme '\(scheme)' is not http or https"
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return h == "localhost" || h == "::1" || h.hasPrefix("127.")
    }

    /// A URL as messages show it: without its user information and query (where credentials hide).
    public static func redacted(_ url: String) -> String {
        guard var u = URLComponents(string: url) else { return "<unparsable URL>" }
        u.user = nil
        u.password = nil
        let hadQuery = u.query != nil
        u.query = nil
        return (u.string ?? "<unparsable URL>") + (hadQuery ? "?…" : "")
    }

    /// One conditional GET of `url`, following redirects.
    ///
    /// - Parameters:
    ///   - url: the rules URL.
    ///   - etag: the ETag of the rules in force (sent as `If-None-Match`).
    ///   - lastModified: their Last-Modified (sent as `If-Modified-Since`).
    ///   - now: the time the entry is stamped with, in seconds since 1970 (nil: now).
    /// - Returns: the new body with its validators, or `notModified`.
    /// - Throws: `input.fetch-failed` saying why, with the URL redacted.
    public func fetch(_ url: String, etag: String? = nil, lastModified: String? = nil, now: Double? = nil)
        async throws(DiagnosticError) -> RulesFetch
    {
        func fail(_ why: String) -> DiagnosticError {
            DiagnosticError(.error(.fetchFailed, "cannot fetch rules from '\(Self.redacted(url))': \(why)"))
        }
        var current = url
        var hops = 0
        var credentials = true
        let firstHost = URLComponents(string: url)?.host?.lowercased()
        while true {
            if let why = refusal(current) { throw fail(why) }
            var headers: [(name: String, value: String)] = credentials ? options.headers : []
            if let etag { headers.append(("If-None-Match", etag)) }
            if let lastModified { headers.append(("If-Modified-Since", lastModified)) }
            let request = RulesRequest(
                url: current, headers: headers, maxBodyBytes: options.maxBodyBytes, connectTimeout: options.connectTimeout,
                timeout: options.timeout)
            let response: RulesResponse
            do { response = try await transport.send(request) } catch { throw fail("\(error)") }
            switch response.status {
            case 200:
                return .fetched(
                    RulesCache.Entry(
                        url: url, etag: response.header("ETag"), lastModified: response.header("Last-Modified"),
                        fetchedAt: now ?? Date().timeIntervalSince1970,
                        body: response.body))
            case 304:
                return .notModified
            case 301, 302, 303, 307, 308:
                hops += 1
                guard hops <= options.maxRedirects else { throw fail("more than \(options.maxRedirects) redirects") }
                guard let location = response.header("Location"), let base = URL(string: current),
                    let next = URL(string: location, relativeTo: base)?.absoluteString
                else { throw fail("a redirect (\(response.status)) without a usable Location") }
                if current.lowercased().hasPrefix("https:"), next.lowercased().hasPrefix("http:") {
                    throw fail("a redirect from https to plain http is refused")
                }
                if URLComponents(string: next)?.host?.lowercased() != firstHost { credentials = false }
                current = next
            default:
                throw fail("the publisher answered \(response.status)")
            }
        }
    }
}
