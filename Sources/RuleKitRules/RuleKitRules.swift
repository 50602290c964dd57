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
//   Evaluate  event × plan → matches  Evaluate/  `Resolver` reads keys by path discovery, `Interpreter`
//                                                runs programs, `Explain` traces them
//   Engine    matches → consequences  Engine/    `RulesEngine`: attach, modify, dispatch, history,
//                                                chained events, through a `RulesRuntime` (the hub)
//   Write     RuleSet → text          Write/     back to rules.json or RuleKit's YAML
//
// What the author is told beyond load and plan (keys against schemas and examples, rules that never fire
// or re-trigger themselves) is the linter's, in RuleKitTooling. Pointer code is in `Unsafe/` (the index
// probe, batch matching, borrowed data); each fast path has a plain reference its tests compare.
