public import Foundation
internal import RuleKitCore
public import RuleKitExtension
public import RuleKitHub
public import RuleKitShared

/// A session's state, as the referral seed's app shows it.
public enum SessionState: String, Sendable {
    case anonymous, identified, loggedOut, error
}

/// The referral SDK as a RuleKit extension. Its API (`ReferralClient`) dispatches request events and
/// answers through response listeners; its access token lives in the shared container (collection
/// `referral.session`), so a companion process sees the same session; its state is its shared state
/// (`{"state", "email"}`), which is also how a host listens for state changes; and the "share happened"
/// signal is an outbound message, so rules can enrich it or strip fields before it leaves.
///
/// Requests are handled one at a time on the extension's own queue (a slow service holds up only this
/// extension). Transitions: no token or an expired token → new session (`anonymous`); identify →
/// `identified`; logout → `loggedOut`; a 4xx answer or a service that keeps failing → `error`.
public final class ReferralExtension: Extension, @unchecked Sendable {
    public static let extensionName = "com.example.referral"
    public static let eventType = "com.example.eventType.referral"
    public static let requestSource = "com.adobe.eventSource.requestContent"
    public static let responseSource = "com.adobe.eventSource.responseContent"
    static let sessionCollection = "referral.session"

    public struct Configuration: Sendable {
        public var baseURL: URL
        public var container: SharedContainer
        /// The rules extension's control, for the outbound stage (looked up when a share is sent).
        public var rules: @Sendable () -> RulesControl?
        public var maxAttempts: Int
        public var initialBackoff: Double

        public init(baseURL: URL, container: SharedContainer, rules: @escaping @Sendable () -> RulesControl? = { nil },
                    maxAttempts: Int = 3, initialBackoff: Double = 0.2) {
            self.baseURL = baseURL
            self.container = container
            self.rules = rules
            self.maxAttempts = maxAttempts
            self.initialBackoff = initialBackoff
        }
    }

    public let name = ReferralExtension.extensionName
    public let friendlyName = "Referral"
    public let version = "1.0.0"
    public let runtime: any ExtensionRuntime
    let configuration: Configuration
    let service: ReferralService
    private let current = Locked<(state: SessionState, reason: String?)>((.loggedOut, nil))

    public static func factory(_ configuration: Configuration) -> EventHub.ExtensionFactory {
        { ReferralExtension(runtime: $0, configuration: configuration) }
    }

    public convenience init?(runtime: any ExtensionRuntime) { nil }

    public init(runtime: any ExtensionRuntime, configuration: Configuration) {
        self.runtime = runtime
        self.configuration = configuration
        service = ReferralService(baseURL: configuration.baseURL, maxAttempts: configuration.maxAttempts,
                                  initialBackoff: configuration.initialBackoff)
    }

    public func onRegistered() {
        registerListener(type: Self.eventType, source: Self.requestSource) { [weak self] e in self?.handle(e) }
        // Startup, as the seed's app does it: reuse the saved token if the service still accepts it.
        dispatch(event: Event(name: "Referral activate", type: Self.eventType, source: Self.requestSource,
                              data: ["action": "activate"]))
    }

    public func onUnregistered() {}

    // MARK: requests

    func handle(_ e: Event) {
        let action = e.data?["action"]?.stringValue ?? ""
        var error: ReferralError?
        do {
            switch action {
            case "activate": try activate()
            case "newSession": try newSession()
            case "identify": try identify(e.data?["email"]?.stringValue ?? "")
            case "logout": try logout()
            case "share": try share(channel: e.data?["channel"]?.stringValue ?? "", extra: e.data?["data"]?.objectValue ?? [:])
            default: error = .rejected(status: 400, reason: "unknown action '\(action)'")
            }
        } catch let failure as ReferralError {
            error = failure
            if case .notReady = failure {} else { set(.error, reason: failure.description) }
        } catch {
            set(.error, reason: "\(error)")
        }
        let now = current.withLock { $0 }
        var data: ValueObject = ["action": .string(action), "ok": .bool(error == nil), "state": .string(now.state.rawValue)]
        if let error { data["error"] = .string(error.description) }
        publishState(for: e)
        dispatch(event: e.createResponseEvent(name: "Referral response", type: Self.eventType, source: Self.responseSource, data: data))
    }

    var session: ValueObject? { (try? configuration.container.read(Self.sessionCollection))?.objectValue }

    func activate() throws {
        guard let token = session?["token"]?.stringValue else { return try newSession() }
        let reply = try service.call("GET", "v1/token", token: token)
        switch reply.status {
        case 200..<300: set(session?["email"] == nil ? .anonymous : .identified)
        case 401, 403: try newSession() // expired: start over, anonymously
        default: throw ReferralError.rejected(status: reply.status, reason: "token check")
        }
    }

    func newSession() throws {
        let reply = try service.call("POST", "v1/token")
        guard (200..<300).contains(reply.status), let token = reply.body?["access_token"]?.stringValue else {
            throw ReferralError.rejected(status: reply.status, reason: "no access token issued")
        }
        try configuration.container.write(Self.sessionCollection, ["token": .string(token)])
        set(.anonymous)
    }

    func identify(_ email: String, retried: Bool = false) throws {
        guard let token = session?["token"]?.stringValue else { throw ReferralError.notReady(current.withLock { $0.state }) }
        let reply = try service.call("POST", "v1/identify", token: token, body: ["email": .string(email)])
        switch reply.status {
        case 200..<300:
            try configuration.container.update(Self.sessionCollection) { old in
                var o = old?.objectValue ?? [:]
                o["email"] = .string(email)
                return .object(o)
            }
            set(.identified)
        case 401 where !retried:
            try newSession()
            try identify(email, retried: true)
        default:
            throw ReferralError.rejected(status: reply.status, reason: reply.body?["message"]?.stringValue ?? "identify refused")
        }
    }

    func logout() throws {
        if let token = session?["token"]?.stringValue {
            let reply = try service.call("DELETE", "v1/token", token: token)
            guard (200..<300).contains(reply.status) || reply.status == 401 else {
                throw ReferralError.rejected(status: reply.status, reason: "logout refused")
            }
        }
        try configuration.container.remove(Self.sessionCollection)
        set(.loggedOut)
    }

    /// The share signal leaves as an outbound message: the rules' outbound stage sees it first.
    func share(channel: String, extra: ValueObject) throws {
        guard let s = session, let token = s["token"]?.stringValue else { throw ReferralError.notReady(current.withLock { $0.state }) }
        var body: ValueObject = ["channel": .string(channel)]
        if let email = s["email"] { body["email"] = email }
        for (k, v) in extra { body[k] = v }
        let message = OutboundMessage(url: configuration.baseURL.appendingPathComponent("v1/share").absoluteString,
                                      headers: ["Authorization": .string("Bearer \(token)")], body: .object(body))
        // The rules' outbound stage is synchronous; the send is too (this runs on the extension's own queue,
        // and blocking a Swift-concurrency thread on a Task here could starve a small cooperative pool).
        let final = configuration.rules()?.outbound(message) ?? message
        let reply = try service.send(final)
        guard (200..<300).contains(reply.status) else {
            throw ReferralError.rejected(status: reply.status, reason: reply.body?["message"]?.stringValue ?? "share refused")
        }
    }

    // MARK: state

    func set(_ state: SessionState, reason: String? = nil) {
        current.withLock { $0 = (state, reason) }
    }

    func publishState(for event: Event?) {
        let now = current.withLock { $0 }
        var data: ValueObject = ["state": .string(now.state.rawValue)]
        if now.state == .identified, let email = session?["email"] { data["email"] = email }
        if let reason = now.reason { data["reason"] = .string(reason) }
        createSharedState(data: data, event: event)
    }
}
