// RuleKitExtension puts the rules engine inside the event hub: an extension that loads rules (atomically:
// a broken set never replaces a working one, and a service installs one checked snapshot on every hub),
// runs every event through the engine as the hub's preprocessor, reads standard and XDM shared states at
// each event's version, and bounds chains of rules-consequence events so no rule set can make the hub loop
// forever. `RulesHost` is the whole assembly `rulekit run` and `rulekit serve` share; event history, per
// block or not, is RuleKitHistory's. Tools for rule authors (lint, tests, the report) are in RuleKitTooling.
