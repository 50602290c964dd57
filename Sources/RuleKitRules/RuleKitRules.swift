// RuleKitRules is the rules engine, with the Launch rules engine's semantics, traps included
// (`../shared/docs/launch-rules-reference.md`). A rule set goes through it once per phase; nothing is
// parsed while events are evaluated:
//
//   Load      text → RuleSet          Load/      YAML or JSON, RuleKit's format or Launch's rules.json; every
//                                                finding with file:line:column (`RulesNode` over a tape or
//                                                a document)
//   Model     RuleSet, Rule           Model/     what a rule says: conditions, consequences, data elements
//   Plan      RuleSet → plan          Plan/      `Planner`: a `Program` per condition, the `RuleIndex` over
//                                                required equalities, templates split, history questions
//                                                known; its own findings (traps the plan can see)
//   Check     plan → findings         Check/     every finding code and its severity (`CheckSeverity`);
//                                                the rules-only checks (`RuleCheck`: Launch traps, rules
//                                                that never fire or re-trigger themselves, ids across
//                                                files); a finding names its rule (`Diagnostic.rule`)
//   Evaluate  event × plan → matches  Evaluate/  `Resolver` reads keys by path discovery, `Interpreter`
//                                                runs programs, `Explain` traces them
//   Engine    matches → consequences  Engine/    `RulesEngine`: attach, modify, dispatch, history,
//                                                chained events, through a `RulesRuntime` (the hub)
//   Write     RuleSet → text          Write/     back to rules.json or RuleKit's YAML
//
// The linter (RuleKitTooling) runs the Check phase over a loaded, planned set and adds what needs the
// schemas and example events (XDM keys and types, attached XDM). Pointer code lives under the phase it
// serves: `Load/Unsafe` (rules read over a tape), `Plan/Unsafe` (the index's tables, flattened paths),
// `Evaluate/Unsafe` (the index probe, batch matching, borrowed data); each fast path has a plain reference
// its tests compare.
