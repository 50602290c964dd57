internal import Foundation
internal import RuleKitCore
internal import RuleKitExtension
internal import RuleKitFetch

/// The referral service's REST calls (token, identify, logout), synchronous because the extension makes
/// them one at a time on its own queue. 5xx and network errors are retried with backoff; 4xx are answers.
struct ReferralService: Sendable {
    let baseURL: URL
    let maxAttempts: Int
    let initialBackoff: Double

    struct Reply {
        var status: Int
        var body: Value?
    }

    func call(_ method: String, _ path: String, token: String? = nil, body: Value? = nil) throws(ReferralError) -> Reply {
        var headers: ValueObject = [:]
        if let token { headers["Authorization"] = .string("Bearer \(token)") }
        return try send(OutboundMessage(url: baseURL.appendingPathComponent(path).absoluteString, method: method,
                                        headers: headers, body: body))
    }

    /// Sends a message as it stands (after the rules' outbound stage, for the share signal).
    func send(_ message: OutboundMessage) throws(ReferralError) -> Reply {
        guard let url = URL(string: message.url), url.host != nil else { throw .service("invalid URL '\(message.url)'") }
        let method = message.method, path = url.path
        var delay = initialBackoff
        var last = ""
        for attempt in 1...maxAttempts {
            let (status, data, error) = Self.perform(message)
            if let status, status < 500 {
                let value = data.flatMap { $0.isEmpty ? nil : try? JSONReader.read($0).value }
                return Reply(status: status, body: value)
            }
            last = status.map { "HTTP \($0)" } ?? (error ?? "no response")
            if attempt < maxAttempts {
                Thread.sleep(forTimeInterval: delay)
                delay *= 2
            }
        }
        throw .service("\(method) \(path) failed after \(maxAttempts) attempts: \(last)")
    }

    /// The process's shared client (AsyncHTTPClient, as RuleKit's own network), 10 s an exchange.
    private static let transport = HTTPTransport.shared(maxAttempts: 1, timeout: .seconds(10))

    /// One exchange, waited for on this thread (the extension's queue): the answer comes on the client's
    /// event loop, so no task (and no cooperative thread) is needed.
    private static func perform(_ message: OutboundMessage) -> (Int?, [UInt8]?, String?) {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<(Int?, [UInt8]?, String?)>((nil, nil, nil))
        transport.exchange(message) { answer in
            switch answer {
            case .success(let reply): result.withLock { $0 = (reply.status, reply.body, nil) }
            case .failure(let error): result.withLock { $0 = (nil, nil, "\(error)") }
            }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }
}

public enum ReferralError: Error, Sendable, Equatable, CustomStringConvertible {
    case service(String)
    case rejected(status: Int, reason: String)
    case notReady(SessionState)
    case timedOut

    public var description: String {
        switch self {
        case .service(let m): m
        case .rejected(let s, let r): "the service refused (HTTP \(s)): \(r)"
        case .notReady(let s): "no session to act on (state \(s.rawValue))"
        case .timedOut: "no answer from the referral extension"
        }
    }
}
