internal import Foundation
public import RuleKitCore
public import RuleKitHub

/// The referral SDK's public API for a host: each call is a request event answered by a response event.
public struct ReferralClient: Sendable {
    public let hub: EventHub
    public let timeout: Double

    public init(hub: EventHub, timeout: Double = 30) {
        self.hub = hub
        self.timeout = timeout
    }

    public struct Answer: Sendable, Equatable {
        public var ok: Bool
        public var state: SessionState
        public var error: String?

        public init(ok: Bool, state: SessionState, error: String? = nil) {
            self.ok = ok
            self.state = state
            self.error = error
        }
    }

    public func newSession(_ done: @escaping @Sendable (Result<Answer, ReferralError>) -> Void) { send(["action": "newSession"], done) }
    public func identify(email: String, _ done: @escaping @Sendable (Result<Answer, ReferralError>) -> Void) {
        send(["action": "identify", "email": .string(email)], done)
    }
    public func logout(_ done: @escaping @Sendable (Result<Answer, ReferralError>) -> Void) { send(["action": "logout"], done) }
    /// "A share happened" on `channel`; `data` travels with the signal (rules may add to it or strip it).
    public func signalShare(channel: String, data: ValueObject = [:], _ done: @escaping @Sendable (Result<Answer, ReferralError>) -> Void) {
        send(["action": "share", "channel": .string(channel), "data": .object(data)], done)
    }

    /// The blocking form, for command-line hosts and tests.
    public func wait(_ call: (@escaping @Sendable (Result<Answer, ReferralError>) -> Void) -> Void) -> Result<Answer, ReferralError> {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Result<Answer, ReferralError>>(.failure(.timedOut))
        call { r in
            result.withLock { $0 = r }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }

    /// The current state, as the extension last published it.
    public var state: SessionState? {
        hub.getSharedState(extensionName: ReferralExtension.extensionName, event: nil)?.value?["state"]?.stringValue
            .flatMap(SessionState.init(rawValue:))
    }

    func send(_ data: ValueObject, _ done: @escaping @Sendable (Result<Answer, ReferralError>) -> Void) {
        let e = Event(name: "Referral request", type: ReferralExtension.eventType, source: ReferralExtension.requestSource, data: data)
        hub.dispatch(e, timeout: timeout) { response in
            guard let r = response, let state = r.data?["state"]?.stringValue.flatMap(SessionState.init(rawValue:)) else {
                return done(.failure(.timedOut))
            }
            done(.success(Answer(ok: r.data?["ok"]?.boolValue ?? false, state: state, error: r.data?["error"]?.stringValue)))
        }
    }
}
