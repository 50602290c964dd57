// A host app embedding RuleKit in a few lines: register the rules extension and an app extension with the
// hub, start, dispatch. Run: swift run example-host (from the repository root, so Rules/ is found).
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitHub

/// The host's own extension: it sends purchases on and prints what reaches it after the rules ran.
final class Analytics: Extension, @unchecked Sendable {
    let name = "com.example.analytics"
    let friendlyName = "Analytics"
    let version = "1.0.0"
    let runtime: any ExtensionRuntime

    init?(runtime: any ExtensionRuntime) { self.runtime = runtime }

    func onRegistered() {
        registerListener(type: EventType.edge, source: EventSource.requestContent) { event in
            print("analytics sends \(event.name): \(Value.object(event.data ?? [:]))")
        }
        registerListener(type: "com.adobe.eventType.messaging", source: EventSource.wildcard) { event in
            print("messaging is asked: \(Value.object(event.data ?? [:]))")
        }
    }

    func onUnregistered() {}
}

let hub = EventHub()
let booted = DispatchSemaphore(value: 0)
hub.registerExtensions(factories: [
    RulesExtension.factory(.init(sources: ["Rules"])),
    { Analytics(runtime: $0) },
]) { _ in booted.signal() }
booted.wait()

let purchase: ValueObject = ["xdm": ["eventType": "commerce.purchases",
                                     "commerce": ["order": ["priceTotal": 959.45, "currencyCode": "GBP"]]]]
let cartAdd: ValueObject = ["xdm": ["eventType": "commerce.productListAdds",
                                    "productListItems": [["SKU": "p0041725", "quantity": 1]]]]
let done = DispatchSemaphore(value: 0)
hub.registerEventListener(type: "example.done", source: "host") { _ in done.signal() }
hub.dispatch(Event(name: "Purchase", type: EventType.edge, source: EventSource.requestContent, data: purchase))
hub.dispatch(Event(name: "Cart add", type: EventType.edge, source: EventSource.requestContent, data: cartAdd))
hub.dispatch(Event(name: "done", type: "example.done", source: "host"))
done.wait()
Thread.sleep(forTimeInterval: 0.2)
