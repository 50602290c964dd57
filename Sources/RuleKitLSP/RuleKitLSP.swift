// RuleKitLSP is `rulekit lsp`: RuleKit in the rule author's editor, over the Language Server Protocol 3.17.
//
// No Swift LSP library is among the packages this project may use, so the protocol's part that RuleKit
// needs is written here, on RuleKit's own JSON reader and writer (`Value`): the `Content-Length` framing
// (`MessageFramer`, bounded), JSON-RPC requests, notifications and errors (`JSONRPC.swift`), positions in
// the client's encoding (`TextDocument`), and the few message shapes the features answer with.
//
// Layers:
// - Protocol/: framing and JSON-RPC, nothing RuleKit-specific.
// - Workspace/: the open documents, what the workspace folder holds (the linter made from `Schemas/`, the
//   rules files on disk), and `DocumentCheck`, the one check of a file: `rulekit lint`'s for rules files,
//   the test loader's for `*.test.yaml`.
// - Features/: diagnostics with ranges, completion by cursor context, hover, definition, references, the
//   outline and the "did you mean" quick fixes. Each reads a `WorkspaceSnapshot`; none parses a rules file
//   itself except `CursorContext`, which reads the lines above the cursor by indentation, because the text
//   being typed rarely parses.
// - Server/: `LanguageServer` handles messages in order on the reading thread; `CheckScheduler` runs the
//   checks on a thread of its own, newest text only, and never publishes for a version older than the
//   newest. It keeps each open YAML rules file's libyaml events (`YAMLEventLog`), so that a check after
//   an edit inside one rule reads only that rule's lines again. The reading thread never waits on a
//   check: completion and hover answer while one runs.
