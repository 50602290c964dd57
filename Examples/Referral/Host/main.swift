// A host for the referral SDK extension: boots a hub with the rules extension (its outbound rules strip
// and enrich the share signal) and the referral extension, then walks a session through its states.
// Run: swift run referral-host http://127.0.0.1:PORT [CONTAINER_DIR] [RULES...]
import Foundation
import ReferralKit
import RuleKitCore
import RuleKitExtension
import RuleKitHub
import RuleKitShared

let args = Array(CommandLine.arguments.dropFirst())
guard let base = args.first.flatMap(URL.init(string:)) else {
    FileHandle.standardError.write(Data("usage: referral-host BASE_URL [CONTAINER_DIR] [RULES...]\n".utf8))
    exit(2)
}
let containerDir = args.count > 1 ? args[1] : ".rulekit/referral"
let rules = args.count > 2 ? Array(args[2...]) : ["Examples/Referral/rules.yaml"]
let container: SharedContainer
do { container = try SharedContainer(directory: URL(fileURLWithPath: containerDir)) } catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(2)
}

let hub = EventHub()
let booted = DispatchSemaphore(value: 0)
hub.registerExtensions(factories: [
    RulesExtension.factory(.init(sources: rules)),
    ReferralExtension.factory(.init(baseURL: base, container: container,
                                    rules: { hub.api(named: RulesExtension.extensionName, as: RulesControl.self) })),
]) { _ in booted.signal() }
booted.wait()

let client = ReferralClient(hub: hub)
while client.state == nil { Thread.sleep(forTimeInterval: 0.005) } // activation: saved token checked or new session
print("started: \(client.state?.rawValue ?? "?")")
/// Whether any step failed: the host then exits 1 (a host that cannot reach the service must not look
/// like one that worked).
nonisolated(unsafe) var anyFailed = false
func show(_ what: String, expectOK: Bool = true, _ r: Result<ReferralClient.Answer, ReferralError>) {
    if case .failure = r { anyFailed = true }
    if case .success(let a) = r, a.ok != expectOK { anyFailed = true }
    switch r {
    case .success(let a):
        // The extension's shared state is what a state listener sees.
        let shared = hub.getSharedState(extensionName: ReferralExtension.extensionName, event: nil)?.value ?? [:]
        print("\(what): ok=\(a.ok)\(a.error.map { " error=\"\($0)\"" } ?? "") shared state \(JSONWriter.string(.object(shared)))")
    case .failure(let e): print("\(what): failed: \(e)")
    }
}
show("identify", client.wait { client.identify(email: "ada@example.com", $0) })
show("share", client.wait { client.signalShare(channel: "email", data: ["message": "my wishlist", "phone": "+44 20 0000"], $0) })
show("logout", client.wait { client.logout($0) })
show("share after logout", expectOK: false, client.wait { client.signalShare(channel: "email", $0) })
show("new session", client.wait { client.newSession($0) })
exit(anyFailed ? 1 : 0)
