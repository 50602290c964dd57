// RuleKitTooling is what rule authors' tools are made of, apart from the glue that puts the engine in a
// hub (RuleKitExtension): the linter (every finding knowable offline, with lint's severities), rule tests
// (the `*.test.yaml` format, its JSON Schema, and the runner that plays each case on a fresh hub), the
// HTML report, and `MatchStream`, the batch matcher over a JSON-lines stream that `rulekit match` and the
// report share. The command-line tool parses options, calls one of these, and formats what comes back.
