import Foundation
import ReferralKit
import RuleKitCore
import RuleKitExtension
import RuleKitHub
import RuleKitShared
import RuleKitTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The referral SDK extension against a local stand-in for its service on 127.0.0.1
/// (`Examples/Referral/fake_service.py`): session transitions, the token in the shared container, retries,
/// errors, and the share signal through the rules' outbound stage.
@Suite(.serialized) struct ReferralExtensionTests {
    /// The stand-in service and its test controls.
    final class Service {
        let server: LocalServer
        var port: Int { server.port }
        var base: URL { server.base }

        init() throws {
            server = try LocalServer(
                script: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                    .appendingPathComponent("../../Examples/Referral/fake_service.py").standardized)
        }

        func request(_ method: String, _ path: String) throws -> Value {
            var r = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            r.httpMethod = method
            let done = DispatchSemaphore(value: 0)
            let result = Locked<Data>(Data())
            URLSession.shared.dataTask(with: r) { d, _, _ in
                result.withLock { $0 = d ?? Data() }
                done.signal()
            }.resume()
            done.wait()
            return try JSONReader.read([UInt8](result.withLock { $0 })).value
        }

        func log() throws -> [Value] { try request("GET", "/log").arrayValue ?? [] }
        func paths() throws -> [String] { try log().map { "\($0["method"]?.stringValue ?? "") \($0["path"]?.stringValue ?? "")" } }

        func stop() { server.stop() }
    }

    static let rulesPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Examples/Referral/rules.yaml").standardized.path

    static func container() throws -> SharedContainer {
        try SharedContainer(directory: Scratch.url("rk-referral-\(UUID())"))
    }

    /// A booted hub with the rules extension and the referral extension; waits for activation.
    static func host(_ service: Service, _ container: SharedContainer) throws -> (EventHub, ReferralClient) {
        let hub = EventHub()
        let booted = DispatchSemaphore(value: 0)
        hub.registerExtensions(factories: [
            RulesExtension.factory(.init(sources: [rulesPath])),
            ReferralExtension.factory(
                .init(
                    baseURL: service.base, container: container,
                    rules: { hub.api(named: RulesExtension.extensionName, as: RulesControl.self) },
                    initialBackoff: 0.01)),
        ]) { _ in booted.signal() }
        booted.wait()
        let client = ReferralClient(hub: hub, timeout: 30)
        let deadline = Date().addingTimeInterval(30)
        while client.state == nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        return (hub, client)
    }

    static var pythonAvailable: Bool { LocalServer.isAvailable }

    @Test(.enabled(if: pythonAvailable, "python3 (the local stand-in service) is not available"))
    func aSessionGoesThroughItsStatesAndTheShareSignalPassesTheRules() throws {
        let service = try Service()
        defer { service.stop() }
        let container = try Self.container()
        let (_, client) = try Self.host(service, container)
        #expect(client.state == .anonymous)
        let token = try #require(try container.read("referral.session")?["token"]?.stringValue)

        #expect(client.wait { client.identify(email: "ada@example.com", $0) } == .success(.init(ok: true, state: .identified, error: nil)))
        #expect(try container.read("referral.session")?["email"] == "ada@example.com")
        #expect(
            client.wait { client.signalShare(channel: "email", data: ["phone": "+44 20 0000", "note": "hi"], $0) }
                == .success(.init(ok: true, state: .identified, error: nil)))
        let share = try #require(try service.log().last { $0["path"] == "/v1/share" })
        #expect(
            try JSONReader.read(Array((share["body"]?.stringValue ?? "").utf8)).value
                == ["channel": "email", "email": "ada@example.com", "note": "hi", "campaign": "spring-referral"])
        #expect(share["headers"]?["Authorization"] == .string("Bearer \(token)"))

        #expect(client.wait { client.logout($0) } == .success(.init(ok: true, state: .loggedOut, error: nil)))
        #expect(try container.read("referral.session") == nil)
        guard case .success(let refused) = client.wait({ client.signalShare(channel: "email", $0) }) else {
            Issue.record("no answer")
            return
        }
        #expect(refused.ok == false && refused.state == .loggedOut)
        #expect(client.wait { client.newSession($0) } == .success(.init(ok: true, state: .anonymous, error: nil)))
        #expect(try service.paths() == ["POST /v1/token", "POST /v1/identify", "POST /v1/share", "DELETE /v1/token", "POST /v1/token"])
    }

    @Test(.enabled(if: pythonAvailable, "python3 (the local stand-in service) is not available"))
    func aRestartReusesTheSavedTokenAndAnExpiredOneStartsANewSession() throws {
        let service = try Service()
        defer { service.stop() }
        let container = try Self.container()
        do {
            let (_, client) = try Self.host(service, container)
            #expect(
                client.wait { client.identify(email: "ada@example.com", $0) } == .success(.init(ok: true, state: .identified, error: nil)))
        }
        // A restart (or a companion process on the same container): the saved token is checked, not replaced.
        let (_, again) = try Self.host(service, container)
        #expect(again.state == .identified)
        #expect(try service.paths() == ["POST /v1/token", "POST /v1/identify", "GET /v1/token"])
        // The service expires every token: the next identify gets 401, starts a new session, and succeeds.
        _ = try service.request("POST", "/control/expire")
        let before = try container.read("referral.session")?["token"]
        #expect(again.wait { again.identify(email: "grace@example.com", $0) } == .success(.init(ok: true, state: .identified, error: nil)))
        #expect(try container.read("referral.session")?["token"] != before)
        #expect(try service.paths().suffix(3) == ["POST /v1/identify", "POST /v1/token", "POST /v1/identify"])
        // And a restart after expiry starts anonymously.
        _ = try service.request("POST", "/control/expire")
        let (_, third) = try Self.host(service, container)
        #expect(third.state == .anonymous)
    }

    @Test(.enabled(if: pythonAvailable, "python3 (the local stand-in service) is not available"))
    func serverErrorsAreRetriedAndRefusalsPutTheSessionInError() throws {
        let service = try Service()
        defer { service.stop() }
        let (_, client) = try Self.host(service, try Self.container())
        _ = try service.request("POST", "/control/fail?n=2")
        #expect(client.wait { client.identify(email: "ada@example.com", $0) } == .success(.init(ok: true, state: .identified, error: nil)))
        #expect(try service.paths().filter { $0 == "POST /v1/identify" }.count == 3)
        guard case .success(let refused) = client.wait({ client.identify(email: "not-an-email", $0) }) else {
            Issue.record("no answer")
            return
        }
        #expect(refused.ok == false)
        #expect(refused.state == .error)
        #expect(refused.error?.contains("invalid email") == true)
        #expect(client.state == .error)
        // A service that keeps failing is an error too, after the retries.
        _ = try service.request("POST", "/control/fail?n=10")
        guard case .success(let down) = client.wait({ client.newSession($0) }) else {
            Issue.record("no answer")
            return
        }
        #expect(down.ok == false && down.state == .error)
        #expect(down.error?.contains("503") == true)
    }
}
