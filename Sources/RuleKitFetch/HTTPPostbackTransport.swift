// Postbacks over AsyncHTTPClient (the client remote rules use): the hit's method, body, content type and
// `Idempotency-Key`, its time-out over the whole exchange, no redirects followed (a receiver that moves
// answers 3xx, which is not delivered), and the answer's body read and dropped within 64 KiB.
internal import AsyncHTTPClient
internal import Foundation
internal import NIOCore
internal import NIOHTTP1
internal import NIOSSL
public import RuleKitPostbacks

/// A `PostbackTransport` on AsyncHTTPClient. Call `shutdown()` before it is released.
public final class HTTPPostbackTransport: PostbackTransport {
    private let client: HTTPClient
    private let headers: [(String, String)]

    /// A client trusting the system's roots, or `caFile`'s (PEM), sending `headers` with every hit (a
    /// receiver's `Authorization`, never logged).
    ///
    /// - Parameters:
    ///   - caFile: a PEM file of CA certificates, or nil.
    ///   - headers: extra headers.
    /// - Throws: `HTTPRulesTransport.SetupError` for a CA file that cannot be read.
    public init(caFile: String? = nil, headers: [(String, String)] = []) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            do { tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile)) } catch {
                throw HTTPRulesTransport.SetupError(description: "cannot read the CA certificates in '\(caFile)': \(error)")
            }
        }
        var c = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10)))
        c.decompression = .disabled
        c.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: c)
        self.headers = headers
    }

    /// Sends one hit.
    public func send(_ hit: Postback) async -> PostbackAnswer {
        var r = HTTPClientRequest(url: hit.url)
        r.method = hit.method == "POST" ? .POST : .GET
        for (name, value) in headers { r.headers.add(name: name, value: value) }
        r.headers.add(name: "Idempotency-Key", value: hit.key)
        r.headers.add(name: "User-Agent", value: "rulekit")
        if let body = hit.body, !body.isEmpty {
            r.headers.add(name: "Content-Type", value: hit.contentType)
            r.body = .bytes(ByteBuffer(string: body))
        }
        do {
            let response = try await client.execute(r, timeout: .milliseconds(Int64(max(0.1, min(hit.timeout, 600)) * 1000)))
            var read = 0
            for try await chunk in response.body {
                read += chunk.readableBytes
                if read > 64 << 10 { break }
            }
            let retryAfter = response.headers.first(name: "Retry-After").flatMap(Double.init)
            return .status(Int(response.status.code), retryAfter: retryAfter)
        } catch {
            return .transport("\(error)")
        }
    }

    /// Closes the client's connections.
    public func shutdown() async {
        try? await client.shutdown()
    }
}
