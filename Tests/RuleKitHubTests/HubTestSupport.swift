import Foundation
import RuleKitCore

@testable import RuleKitHub

/// What a test extension saw: its API object, so tests reach it through `hub.api(named:)`.
final class Recorder: Sendable {
    let events = Locked<[Event]>([])
    let ready = Locked(true)
    let delay = Locked<Double>(0)
    let inListener = Locked(0)
    let maxConcurrent = Locked(0)
    let timeline = Locked<[String]>([])
    /// The names of the events `readyForEvent` said no to, in order: proof that the hub asked, and held.
    let refused = Locked<[String]>([])
    let runtimeBox = Locked<(any ExtensionRuntime)?>(nil)

    var received: [Event] { events.withLock { $0 } }
    var runtime: any ExtensionRuntime { runtimeBox.withLock { $0! } }

    func record(_ e: Event) {
        let now = inListener.withLock {
            $0 += 1
            return $0
        }
        maxConcurrent.withLock { $0 = max($0, now) }
        let d = delay.withLock { $0 }
        if d > 0 { Thread.sleep(forTimeInterval: d) }
        events.withLock { $0.append(e) }
        inListener.withLock { $0 -= 1 }
    }

    /// Events other than the hub's own shared-state notifications.
    var userEvents: [Event] { received.filter { $0.type != EventType.hub } }
}

/// A recording extension; subclasses give it a name (and other behaviour).
class RecordingExtension: Extension, @unchecked Sendable {
    class var extensionName: String { "test.recording" }
    class var extensionDependencies: [String] { [] }
    class var registrationDelay: Double { 0 }
    class var timelineKey: String { extensionName }
    class var skipsUnheard: Bool { false }

    var name: String { Self.extensionName }
    let friendlyName: String
    let version = "1.0.0"
    var metadata: [String: String]? { ["kind": "test"] }
    var dependencies: [String] { Self.extensionDependencies }
    let recorder = Recorder()
    var api: (any Sendable)? { recorder }
    let runtime: any ExtensionRuntime

    required init?(runtime: any ExtensionRuntime) {
        self.runtime = runtime
        friendlyName = "Recording \(Self.extensionName)"
        recorder.runtimeBox.withLock { $0 = runtime }
        Timeline.note("init \(Self.extensionName)")
    }

    func onRegistered() {
        Timeline.note("register-start \(Self.extensionName)")
        if Self.registrationDelay > 0 { Thread.sleep(forTimeInterval: Self.registrationDelay) }
        registerListener(type: EventType.wildcard, source: EventSource.wildcard) { [recorder] e in recorder.record(e) }
        Timeline.note("register-end \(Self.extensionName)")
    }

    func onUnregistered() { Timeline.note("unregistered \(Self.extensionName)") }

    func readyForEvent(_ event: Event) -> Bool {
        let ready = recorder.ready.withLock { $0 }
        if !ready { recorder.refused.withLock { $0.append(event.name) } }
        return ready
    }
    var skipsUnheardEvents: Bool { Self.skipsUnheard }
}

final class ExtA: RecordingExtension, @unchecked Sendable { override class var extensionName: String { "test.a" } }
final class ExtB: RecordingExtension, @unchecked Sendable { override class var extensionName: String { "test.b" } }
final class ExtC: RecordingExtension, @unchecked Sendable { override class var extensionName: String { "test.c" } }
final class ExtD: RecordingExtension, @unchecked Sendable { override class var extensionName: String { "test.d" } }

/// A global timeline of registration steps, per extension name (names are unique to the tests using them).
enum Timeline {
    static let entries = Locked<[String]>([])
    static func note(_ s: String) { entries.withLock { $0.append(s) } }
    static func index(of s: String) -> Int? { entries.withLock { $0.lastIndex(of: s) } }
}

/// Polls until `condition` holds or `seconds` pass.
@discardableResult
func eventually(_ seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.002)
    }
    return condition()
}

/// Waits until everything dispatched before this call has been delivered to every extension: a marker
/// event dispatched now reaches each extension only after every earlier event (each sees events in hub
/// order), and its block completes once it did. A condition where a pause would guess. False after
/// `seconds` (an extension that holds events never completes the marker).
func deliveredSoFar(_ hub: EventHub, seconds: Double = 30) -> Bool {
    let done = DispatchSemaphore(value: 0)
    hub.dispatch(contentsOf: [Event(name: "marker", type: "test.marker", source: "test.marker")], whenDelivered: { done.signal() })
    return done.wait(timeout: .now() + seconds) == .success
}

/// A booted hub with the given extensions.
func bootedHub(_ types: [any Extension.Type], options: EventHub.Options = .init()) -> EventHub {
    let hub = EventHub(options: options)
    let done = Locked(false)
    hub.registerExtensions(types) { _ in done.withLock { $0 = true } }
    eventually { done.withLock { $0 } }
    return hub
}

func recorder(_ hub: EventHub, _ name: String) -> Recorder {
    hub.api(named: name, as: Recorder.self)!
}

func event(_ n: Int, type: String = "t", source: String = "s") -> Event {
    Event(name: "E\(n)", type: type, source: source, data: ["n": .int(Int64(n))])
}
