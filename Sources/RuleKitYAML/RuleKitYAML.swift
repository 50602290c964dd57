// RuleKitYAML reads YAML through libyaml (`CYAML`, the package's one C folder): into a `Document` (a
// `Value` with a source map of every node's position) or, for the rules files it can hold exactly, into a
// `JSONTape` the rules loaders walk as they walk JSON. Anchors, aliases and merge keys work; alias
// expansion, depth, size and scalar length are bounded before they cost anything (`ReaderLimits`).
// `YAMLReader` is the entry; the parser and the tape builder are in `Unsafe/`. An editor keeps a rules file's
// libyaml events between keystrokes (`YAMLEventLog`): an edit inside one rule re-reads that rule's lines only,
// and the tape is built from the spliced events as from a fresh read.
