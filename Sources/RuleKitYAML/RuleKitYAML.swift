// RuleKitYAML reads YAML through libyaml (`CYAML`, the package's one C folder): into a `Document` (a
// `Value` with a source map of every node's position) or, for the rules files it can hold exactly, into a
// `JSONTape` the rules loaders walk as they walk JSON. Anchors, aliases and merge keys work; alias
// expansion, depth, size and scalar length are bounded before they cost anything (`ReaderLimits`).
// `YAMLReader` is the entry; the parser is in `Parser/`, the tape builder in `Tape/`, the editor's event log in `Editing/`. An editor keeps a rules file's
// libyaml events between keystrokes (`YAMLEventLog`): an edit inside one rule re-reads that rule's lines only,
// and the tape is built from the spliced events as from a fresh read.
