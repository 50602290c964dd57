// The network under remote rules, as a protocol: RuleKit's own client (`HTTPRulesTransport`, on
// AsyncHTTPClient) or a host app's network stack, as the reference SDKs' hosts hand in theirs.

/// One GET of a rules URL.
public struct RulesRequest: Sendable {
    /// The absolute URL.
    public var url: String
    /// Headers to send (validators, a publisher's credentials).
    public var headers: [(name: String, value: String)]
    /// The most body bytes to accept: a transport stops reading past it and throws.
    public var maxBodyBytes: Int
    /// The most time to wait for a connection.
    public var connectTimeout: Duration
    /// The most time the whole exchange may take, body included.
    public var timeout: Duration

    /// A request as given.
    ///
    /// - Parameters:
    ///   - url: the absolute URL.
    ///   - headers: headers to send.
    ///   - maxBodyBytes: the body's bound.
    ///   - connectTimeout: the connection's time-out.
    ///   - timeout: the whole exchange's time-out.
    public init(
        url: String, headers: [(name: String, value: String)] = [], maxBodyBytes: Int, connectTimeout: Duration, timeout: Duration
    ) {
        self.url = url
        self.headers = headers
        self.maxBodyBytes = maxBodyBytes
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }
}

/// What a rules URL answered.
public struct RulesResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The response's headers.
    public var headers: [(name: String, value: String)]
    /// The body, whole (never more than the request's bound).
    public var body: [UInt8]

    /// A response as given.
    ///
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - headers: the headers.
    ///   - body: the body.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header named `name`, case-insensitively.
    public func header(_ name: String) -> String? {
        let n = name.lowercased()
        return headers.first { $0.name.lowercased() == n }?.value
    }
}

/// Sends one GET and reads its answer whole, within the request's bounds. Does not follow redirects
/// (`RemoteRules` does, checking each hop) and does not cache.
public protocol RulesTransport: Sendable {
    /// Sends `request`.
    ///
    /// - Parameter request: the GET.
    /// - Returns: the answer, whatever its status.
    /// - Throws: a connection failure, a time-out, or a body past `request.maxBodyBytes`.
    func send(_ request: RulesRequest) async throws -> RulesResponse
}
