// Outbound messages (`OutboundPipeline`) over AsyncHTTPClient, the client remote rules and postbacks use:
// the message's method, headers and JSON body; 5xx answers and transport failures retried with exponential
// back-off, any other answer final (a 4xx says the request itself is wrong). It was URLSession's once, which
// on Linux loaded FoundationNetworking (libcurl and some thirty libraries) into every process linking it.
internal import AsyncHTTPClient
internal import Foundation
internal import NIOCore
internal import NIOHTTP1
internal import RuleKitCore
public import RuleKitExtension

/// Sends outbound messages over HTTP. A transport made with `init` has a client of its own: call
/// `shutdown()` before it is released; `shared` uses the process's client and needs none.
public final class HTTPTransport: Transport {
    /// One answer: its status and body (read up to `maxReplyBytes`).
    public struct Reply: Sendable {
        /// The HTTP status.
        public var status: Int
        /// The body's bytes.
        public var body: [UInt8]
    }

    private let client: HTTPClient
    private let owned: Bool
    /// Tries per message, the first included.
    public let maxAttempts: Int
    /// Seconds before the first retry; each later retry waits twice as long.
    public let initialBackoff: Double
    /// The most one exchange may take, body included.
    public let timeout: Duration
    /// The most bytes of an answer's body read (a longer one is an error).
    public static let maxReplyBytes = 1 << 20

    /// A transport with a client of its own, retrying up to `maxAttempts` tries in all.
    ///
    /// - Parameters:
    ///   - maxAttempts: tries per message (at least 1).
    ///   - initialBackoff: seconds before the first retry.
    ///   - timeout: the most one exchange may take.
    public init(maxAttempts: Int = 4, initialBackoff: Double = 0.2, timeout: Duration = .seconds(60)) {
        var c = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10)))
        c.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: c)
        owned = true
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = max(0, initialBackoff)
        self.timeout = timeout
    }

    private init(shared client: HTTPClient, maxAttempts: Int, initialBackoff: Double, timeout: Duration) {
        self.client = client
        owned = false
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = max(0, initialBackoff)
        self.timeout = timeout
    }

    /// A transport on the process's shared client (nothing to shut down).
    ///
    /// - Parameters:
    ///   - maxAttempts: tries per message (at least 1).
    ///   - initialBackoff: seconds before the first retry.
    ///   - timeout: the most one exchange may take.
    /// - Returns: the transport.
    public static func shared(maxAttempts: Int = 4, initialBackoff: Double = 0.2, timeout: Duration = .seconds(60)) -> HTTPTransport {
        HTTPTransport(shared: .shared, maxAttempts: maxAttempts, initialBackoff: initialBackoff, timeout: timeout)
    }

    /// Sends the message, retrying 5xx answers and transport failures; returns the final status.
    ///
    /// - Throws: `TransportError` for an answer that is not 2xx or 5xx (with its status), and once the tries
    ///   are spent.
    public func send(_ message: OutboundMessage) async throws -> Int {
        var delay = initialBackoff
        var last = ""
        for attempt in 1...maxAttempts {
            do {
                let status = try await exchange(message).status
                if (200..<300).contains(status) { return status }
                if status < 500 { throw TransportError(message: "\(message.url) answered \(status): not retried", status: status) }
                last = "\(message.url) answered \(status)"
            } catch let e as TransportError where e.status != nil {
                throw e
            } catch {
                last = "\(message.url): \(error)"
            }
            if attempt < maxAttempts {
                try await Task.sleep(for: .milliseconds(Int64(min(delay, 3_600) * 1000)))
                delay *= 2
            }
        }
        throw TransportError(message: "\(last) after \(maxAttempts) attempts")
    }

    /// One exchange, no retry: the answer whatever its status.
    ///
    /// - Parameter message: the request.
    /// - Returns: the status and body.
    /// - Throws: `TransportError` when no whole answer came (a bad URL, the connection, the time-out, a body
    ///   past `maxReplyBytes`).
    public func exchange(_ message: OutboundMessage) async throws -> Reply {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Reply, any Error>) in
            exchange(message) { c.resume(with: $0) }
        }
    }

    /// One exchange, no retry, answered to `done` on the client's event loop: what a caller that waits on
    /// its own thread uses (it needs no task, so a busy cooperative pool cannot hold its answer back).
    ///
    /// - Parameters:
    ///   - message: the request.
    ///   - done: called once with the answer, or with a `TransportError` when no whole answer came.
    public func exchange(_ message: OutboundMessage, done: @escaping @Sendable (Result<Reply, TransportError>) -> Void) {
        var headers = HTTPHeaders([("User-Agent", "rulekit")])
        for (name, value) in message.headers { headers.add(name: name, value: value.stringValue ?? JSONWriter.string(value)) }
        var body: HTTPClient.Body?
        if let value = message.body {
            if !headers.contains(name: "Content-Type") { headers.add(name: "Content-Type", value: "application/json") }
            body = .string(JSONWriter.string(value))
        }
        let request: HTTPClient.Request
        let method = HTTPMethod(rawValue: message.method)
        do { request = try HTTPClient.Request(url: message.url, method: method, headers: headers, body: body) } catch {
            done(.failure(TransportError(message: "\(message.url): \(error)")))
            return
        }
        let deadline = NIODeadline.now() + .nanoseconds(HTTPRulesTransport.nanoseconds(timeout))
        let url = message.url
        let delegate = BoundedAnswerDelegate(bound: Self.maxReplyBytes)
        client.execute(request: request, delegate: delegate, deadline: deadline).futureResult.whenComplete { result in
            switch result {
            case .success(let answer): done(.success(Reply(status: answer.status, body: answer.body)))
            case .failure(let error): done(.failure(TransportError(message: "\(url): \(error)")))
            }
        }
    }

    /// Closes the client's connections (nothing for `shared`).
    public func shutdown() async {
        if owned { try? await client.shutdown() }
    }

}
