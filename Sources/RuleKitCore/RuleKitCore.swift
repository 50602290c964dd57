// RuleKitCore is what every other module stands on, and depends on nothing of RuleKit's:
//   - `Value` and `ValueObject`, the closed JSON-like value (no `Any`), with ordered members;
//   - `Event` (with its hub number, parent and data kept as read) and `EventID`, fresh ids without a
//     system call each;
//   - the JSON reader and writer, and `JSONTape`, events kept as read so the engine reads them in place
//     and unchanged data is written out as its own bytes; `JSONLines` and `JSONLinesPipeline`, the
//     block-at-a-time stream every command and the service read through;
//   - `Diagnostic` (a finding with its `file:line:column`, code, rule and suggestion) and its renderer;
//   - `ReaderLimits`, the bounds hostile input meets before it costs anything;
//   - event-history types shared by the hub and the engine (`EventHistoryRequest`, `HistoryRecord`,
//     the reference's hash).
// Folders say what the code does (`Value/`, `JSON/`, `Tape/`, `Input/`, `Events/`, `Diagnostics/`); pointer code lives with the function it serves, each file opening with the invariants it relies on; each fast path has
// a plain reference its tests compare it with.
