// RuleKitHistory is event history, whole: the protocols a hub and a service ask it through
// (`HistoryStore.swift`), the stores (`Memory/`, `SQLite/`, `PostgreSQL/`), and the block history a service
// and `rulekit run --data-dir` keep through it (`Block/`: the working set the hubs answer from, the breaker,
// the durable spool, the time limits). The questions' values (requests, records, hashes, identities) are
// RuleKitCore's, which the rules engine asks in. `HistoryLocation` names the stores: adding one is its file
// and one case there.
