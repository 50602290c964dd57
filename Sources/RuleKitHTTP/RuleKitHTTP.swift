// HTTP for outbound messages, over URLSession: a module of its own, because URLSession lives in
// FoundationNetworking, which on Linux loads libcurl and some thirty libraries behind it into every process
// that links it (about 7 ms at every start of the `rulekit` tool, which sends nothing over HTTP).
public import Foundation
internal import RuleKitCore
public import RuleKitExtension

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

extension OutboundMessage {
    /// The message as an HTTP request (JSON body, `Content-Type: application/json` unless a header says
    /// otherwise); nil when the URL is not one.
    public func urlRequest(timeout: TimeInterval = 60) -> URLRequest? {
        guard let url = URL(string: url) else { return nil }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        for (k, v) in headers { request.setValue(v.stringValue ?? JSONWriter.string(v), forHTTPHeaderField: k) }
        if let body {
            request.httpBody = Data(JSONWriter.string(body).utf8)
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
        }
        return request
    }
}

/// Sends messages over HTTP with URLSession: retries with exponential backoff on 5xx and network errors,
/// never on 4xx (the request itself is wrong).
public final class HTTPTransport: Transport {
    let session: URLSession
    /// Tries per message, the first included.
    public let maxAttempts: Int
    /// Seconds before the first retry; each later retry waits twice as long.
    public let initialBackoff: Double

    /// A transport over `session`, retrying up to `maxAttempts` tries in all.
    public init(session: URLSession = URLSession(configuration: .ephemeral), maxAttempts: Int = 4, initialBackoff: Double = 0.2) {
        self.session = session
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
    }

    /// Sends the message, retrying 5xx answers and network errors; returns the final HTTP status.
    public func send(_ message: OutboundMessage) async throws -> Int {
        guard let request = message.urlRequest() else { throw TransportError(message: "invalid URL '\(message.url)'") }
        var delay = initialBackoff
        var lastError: String = ""
        for attempt in 1...maxAttempts {
            do {
                let status = try await Self.status(of: request, session: session)
                if (200..<300).contains(status) { return status }
                if (400..<500).contains(status) {
                    throw TransportError(message: "\(message.url) answered \(status): not retried", status: status)
                }
                lastError = "\(message.url) answered \(status)"
            } catch let e as TransportError {
                throw e
            } catch {
                lastError = "\(message.url): \(error.localizedDescription)"
            }
            if attempt < maxAttempts {
                try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                delay *= 2
            }
        }
        throw TransportError(message: "\(lastError) after \(maxAttempts) attempts", status: nil)
    }

    static func status(of request: URLRequest, session: URLSession) async throws -> Int {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Int, any Error>) in
            session.dataTask(with: request) { _, response, error in
                if let error {
                    c.resume(throwing: error)
                } else {
                    c.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? 0)
                }
            }.resume()
        }
    }
}
