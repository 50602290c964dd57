// RuleKitServe is `rulekit serve`: the engine as an enrichment service for a fleet (Hummingbird 2).
// `EnrichmentService` runs a batch on one of its `RulesHost`s, with history read and written per block
// (`BlockHistory`, in memory, SQLite or `PostgresEventHistory`); `BatchBody` reads the three body forms
// (JSON lines, an array, an envelope with the device's states) located and bounded; `ServeApp` routes,
// checks tokens (`AuthTokens`), limits and sheds load; `OpenAPIDocument` is the contract schemathesis
// fuzzes; `ServeMetrics` feeds `/metrics`. Reloads install one checked `RuleSnapshot` on every host.
// docs/serving.md is the operator's guide.
