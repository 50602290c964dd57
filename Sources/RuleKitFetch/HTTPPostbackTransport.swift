// Postbacks over AsyncHTTPClient (the client remote rules use): the hit's method, body, content type and
// `Idempotency-Key`, its time-out over the whole exchange, no redirects followed (a receiver that moves
// answers 3xx, which is not delivered), and the answer's body read and dropped as it comes. The client has
// an event loop of its own, and the answer is taken by a delegate on it: the next hit of the line leaves
// from that thread (PostbackDelivery), so a postback wakes one thread, not four.
internal import AsyncHTTPClient
internal import Foundation
internal import NIOConcurrencyHelpers
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
internal import NIOSSL
public import RuleKitPostbacks

/// A `PostbackTransport` on AsyncHTTPClient. Call `shutdown()` before it is released.
public final class HTTPPostbackTransport: PostbackTransport {
    private let client: HTTPClient
    private let loop: MultiThreadedEventLoopGroup
    private let headers: HTTPHeaders
    private let receivers: PostbackReceivers

    /// A client trusting the system's roots, or `caFile`'s (PEM), sending each hit with its receiver's
    /// headers and signature (`receivers`; never logged).
    ///
    /// - Parameters:
    ///   - caFile: a PEM file of CA certificates, or nil.
    ///   - receivers: headers per receiver and the signing secret.
    /// - Throws: `HTTPRulesTransport.SetupError` for a CA file that cannot be read.
    public init(caFile: String? = nil, receivers: PostbackReceivers = PostbackReceivers()) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            do { tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile)) } catch {
                throw HTTPRulesTransport.SetupError(description: "cannot read the CA certificates in '\(caFile)': \(error)")
            }
        }
        var c = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10)))
        c.decompression = .disabled
        c.connectionPool.retryConnectionEstablishment = false
        loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        client = HTTPClient(eventLoopGroupProvider: .shared(loop), configuration: c)
        headers = HTTPHeaders([("User-Agent", "rulekit")])
        self.receivers = receivers
    }

    /// Sends one hit; `done` is called on the client's event loop.
    public func send(_ hit: Postback, done: @escaping @Sendable (PostbackAnswer) -> Void) {
        var h = headers
        for (name, value) in receivers.headers(for: hit) { h.add(name: name, value: value) }
        h.add(name: "Idempotency-Key", value: hit.key)
        var body: HTTPClient.Body?
        if let b = hit.body, !b.isEmpty {
            h.add(name: "Content-Type", value: hit.contentType)
            body = .string(b)
        }
        let request: HTTPClient.Request
        do { request = try HTTPClient.Request(url: hit.url, method: hit.method == "POST" ? .POST : .GET, headers: h, body: body) } catch {
            done(.transport("\(error)"))
            return
        }
        let deadline = NIODeadline.now() + .milliseconds(Int64(max(0.1, min(hit.timeout, 600)) * 1000))
        client.execute(request: request, delegate: AnswerDelegate(), deadline: deadline).futureResult.whenComplete { result in
            switch result {
            case .success(let answer): done(answer)
            case .failure(let error): done(.transport("\(error)"))
            }
        }
    }

    /// Closes the client's connections.
    public func shutdown() async {
        try? await client.shutdown()
        try? await loop.shutdownGracefully()
    }
}

/// Keeps an answer's status and `Retry-After`; its body is dropped as it arrives.
private final class AnswerDelegate: HTTPClientResponseDelegate {
    typealias Response = PostbackAnswer
    private let head = NIOLockedValueBox<HTTPResponseHead?>(nil)

    func didReceiveHead(task: HTTPClient.Task<PostbackAnswer>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.head.withLockedValue { $0 = head }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<PostbackAnswer>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<PostbackAnswer>) throws -> PostbackAnswer {
        guard let head = head.withLockedValue({ $0 }) else { return .transport("no answer") }
        return .status(Int(head.status.code), retryAfter: head.headers.first(name: "Retry-After").flatMap(Double.init))
    }
}
