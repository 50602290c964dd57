// RuleKitHub is the event hub the rules run in, as `../shared/seeds/eventhub-contract.md` describes it:
// extensions registered by factory, listeners and response listeners (with time-outs), standard and XDM
// shared states versioned by event, `readyForEvent`, start and stop of delivery, preprocessors, and event
// history (`EventHistoryStore`; `HistoryWorkingSet` answers a service's blocks from memory).
// `TestableExtensionRuntime` runs one extension alone for its tests. Delivery keeps the contract's order:
// each extension sees events in hub order, one at a time, on a queue of its own (or on one queue for all,
// `Options.serialDelivery`, where one core serves the hub).
