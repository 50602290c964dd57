// The batch matcher over a JSON-lines stream: blocks of lines read, parsed (event data into tapes) and
// matched against one or more planned sets on worker threads, each with its own resolver, and handed back
// in input order. `rulekit match` counts what it hands back; `rulekit report` also keeps the events, and
// matches a baseline set in the same pass.
public import RuleKitCore
internal import RuleKitExtension
public import RuleKitRules

/// Matches a stream of events against planned rule sets, on worker threads, in input order.
///
/// ```swift
/// try MatchStream.run(reader, sets: [compiled], runtime: runtime) { block in
///     for (e, rules) in block.matched[0].enumerated() { print(block.lines[e], rules) }
/// }
/// ```
public enum MatchStream {
    /// What a worker made of one block of the stream.
    public struct Block: Sendable {
        /// The line of each event of the block.
        public var lines: [Int] = []
        /// For each set, the indexes of the rules each event matched.
        public var matched: [[[Int]]] = []
        /// The events, when asked for (`keepEvents`), in the block's order.
        public var events: [Event] = []
        /// Lines that were no event: line number and what was wrong, located.
        public var problems: [(line: Int, diagnostic: Diagnostic)] = []
    }

    /// Lines per block handed to a worker.
    public static let blockSize = 4096
    /// Events matched per call of the batch API: read, then matched at once, while still in cache.
    static let groupSize = 16

    /// Runs `reader` through every set of `sets`, on `workers` threads (0: all on the calling thread), and
    /// hands each block to `consume` in input order. `name` is the stream's name in diagnostics.
    public static func run(
        _ reader: JSONLinesReader, sets: [CompiledRuleSet], runtime: StaticRulesRuntime, name: String,
        workers: Int = JSONLinesPipeline.defaultWorkers + 1, keepEvents: Bool = false, consume: (Block) throws -> Void
    ) throws {
        try JSONLinesPipeline.run(reader, blockSize: blockSize, workers: workers) {
            var resolvers = [Resolver?](repeating: nil, count: sets.count)
            return { lines in
                var block = Block()
                block.matched = Array(repeating: [], count: sets.count)
                var batch: [Event] = []
                batch.reserveCapacity(groupSize)
                // Event data read into tapes: the engine reads the keys it needs there, and no tree is made. A
                // few events at a time, matched as soon as they are read, while their tapes are in cache.
                lines.records(tapeOf: "data", sharing: EventJSON.knownStrings, groupsOf: groupSize) { records in
                    batch.removeAll(keepingCapacity: true)
                    for record in records {
                        switch EventJSON.checkedEvent(record, file: name) {
                        case .success(let e):
                            batch.append(e)
                            block.lines.append(record.line)
                        case .failure(let e):
                            for d in e.diagnostics { block.problems.append((record.line, d)) }
                        }
                    }
                    guard !batch.isEmpty else { return }
                    if keepEvents { block.events += batch }
                    for (s, set) in sets.enumerated() {
                        let first = block.matched[s].count
                        block.matched[s].append(contentsOf: repeatElement([], count: batch.count))
                        if resolvers[s] == nil { resolvers[s] = Resolver(event: batch[0], runtime: runtime, slotCount: set.slotCount) }
                        Evaluator.forEachMatch(set, events: batch, &resolvers[s]!) { e, rule in block.matched[s][first + e].append(rule) }
                    }
                }
                return block
            }
        } consume: { block in
            try consume(block)
            return nil
        }
    }
}
