// RuleKit's own network under remote rules: AsyncHTTPClient with redirects left to `RemoteRules` (which
// checks each hop), TLS with the system's roots or a private CA, the usual proxy variables, and the body
// read chunk by chunk against its bound, so a publisher that sends too much costs its bound and no more.
internal import AsyncHTTPClient
internal import Foundation
internal import NIOCore
internal import NIOHTTP1
internal import NIOSSL
public import RuleKitSources

/// A `RulesTransport` on AsyncHTTPClient. Call `shutdown()` before it is released.
public final class HTTPRulesTransport: RulesTransport {
    /// Why a transport could not be made.
    public struct SetupError: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    private let direct: HTTPClient
    private let proxied: HTTPClient?
    private let noProxy: [String]

    /// A client trusting the system's roots, or `caFile`'s certificates (PEM) in their place; through the
    /// proxy `HTTPS_PROXY`/`HTTP_PROXY` (either case) names, except for the hosts of `NO_PROXY`.
    ///
    /// - Parameters:
    ///   - caFile: a PEM file of the CA certificates to trust, or nil for the system's.
    ///   - given: the variables the proxy is read from (nil: the process's).
    /// - Throws: `SetupError` for a CA file that cannot be read.
    public init(caFile: String? = nil, environment given: [String: String]? = nil) throws {
        let environment = given ?? ProcessInfo.processInfo.environment
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            do { tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile)) } catch {
                throw SetupError(description: "cannot read the CA certificates in '\(caFile)': \(error)")
            }
        }
        func configuration(_ proxy: HTTPClient.Configuration.Proxy?) -> HTTPClient.Configuration {
            var c = HTTPClient.Configuration(
                tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10)), proxy: proxy)
            c.decompression = .disabled
            // A refused connection is an answer: retrying it until the connect time-out only delays the cache.
            c.connectionPool.retryConnectionEstablishment = false
            return c
        }
        direct = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration(nil))
        let proxyText = environment["HTTPS_PROXY"] ?? environment["https_proxy"] ?? environment["HTTP_PROXY"] ?? environment["http_proxy"]
        if let proxyText, let u = URLComponents(string: proxyText.contains("://") ? proxyText : "http://" + proxyText), let host = u.host {
            proxied = HTTPClient(
                eventLoopGroupProvider: .singleton, configuration: configuration(.server(host: host, port: u.port ?? 80)))
        } else {
            proxied = nil
        }
        noProxy = (environment["NO_PROXY"] ?? environment["no_proxy"] ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty }
    }

    /// Whether a request to `host` goes through the proxy.
    func usesProxy(_ host: String) -> Bool {
        guard proxied != nil else { return false }
        let h = host.lowercased()
        if h == "localhost" || h.hasPrefix("127.") || h == "::1" { return false }
        return !noProxy.contains { rule in
            rule == "*" || h == rule || h.hasSuffix(rule.hasPrefix(".") ? rule : "." + rule)
        }
    }

    /// Sends `request` with its time-outs and reads the body within its bound.
    public func send(_ request: RulesRequest) async throws -> RulesResponse {
        let host = URLComponents(string: request.url)?.host ?? ""
        let client = usesProxy(host) ? (proxied ?? direct) : direct
        let deadline = NIODeadline.now() + TimeAmount.nanoseconds(Self.nanoseconds(request.timeout))
        let answer: BoundedAnswer
        // Even a 304's empty body is read to its end (the delegate reads every answer whole): a response
        // dropped unread closes its connection, and a kept-alive connection is what makes a poll cheap.
        do {
            let headers = HTTPHeaders(request.headers.map { ($0.name, $0.value) })
            let r = try HTTPClient.Request(url: request.url, method: .GET, headers: headers)
            answer = try await client.answer(r, bound: request.maxBodyBytes, deadline: deadline)
        } catch let bound as BodyPastBound {
            throw bound
        } catch {
            throw TransportError(Self.describe(error, timeout: request.timeout))
        }
        return RulesResponse(status: answer.status, headers: answer.headers.map { (name: $0.name, value: $0.value) }, body: answer.body)
    }

    /// A transport failure, said plainly.
    struct TransportError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// What went wrong, for a person: AsyncHTTPClient's and NIO's errors named by what they mean.
    static func describe(_ error: any Error, timeout: Duration) -> String {
        if let e = error as? HTTPClientError {
            switch e {
            case .deadlineExceeded, .readTimeout: return "no whole answer within \(timeout)"
            case .connectTimeout: return "the connection timed out"
            case .remoteConnectionClosed: return "the publisher closed the connection before the body ended"
            default: return "\(e)"
            }
        }
        let text = "\(error)"
        // NIO's parser says a body cut short as an EOF in the wrong state.
        if text.contains("stream ended at an unexpected time") { return "the publisher closed the connection before the body ended" }
        if text.contains("Connection refused") { return "connection refused" }
        if "\(type(of: error))".contains("Connection") { return "cannot connect (\(text))" }
        return text
    }

    static func nanoseconds(_ d: Duration) -> Int64 {
        let (s, a) = d.components
        let (ns, over) = s.multipliedReportingOverflow(by: 1_000_000_000)
        return over ? Int64.max / 2 : ns + a / 1_000_000_000
    }

    /// Closes the clients' connections; the transport sends nothing after.
    public func shutdown() async throws {
        try await direct.shutdown()
        try await proxied?.shutdown()
    }
}
