// The service's metrics, through swift-metrics onto a Prometheus registry of its own (no process-wide
// bootstrap: two services in one process, as in tests, keep apart). `GET /metrics` renders the registry.
internal import Foundation
internal import Metrics
internal import Prometheus
internal import RuleKitCore
internal import RuleKitExtension
internal import RuleKitHistory

/// Counters, gauges and the latency histogram of one service.
final class ServeMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let factory: PrometheusMetricsFactory
    let eventsIn: Metrics.Counter
    let eventsOut: Metrics.Counter
    let requests: Metrics.Counter
    let rejected: Metrics.Counter
    let latency: Metrics.Timer
    let reloads: Metrics.Counter
    let reloadFailures: Metrics.Counter
    let rulesPolls: Metrics.Counter
    let rulesPollFailures: Metrics.Counter
    let queueDepth: Metrics.Gauge
    /// How long blocks spent reading history, evaluating, and waiting for their records to be durable.
    let stageRead: Metrics.Timer
    let stageEvaluate: Metrics.Timer
    let stageWrite: Metrics.Timer
    /// Per-rule counters, made on first use; past `maxRuleLabels` rules they share one `other` counter, so
    /// a rule set of any size keeps the exposition bounded.
    private let firedCounters = Locked<[String: Metrics.Counter]>([:])
    private let tallies = Locked<[FiredTally]>([])
    static let maxRuleLabels = 1000

    init() {
        var f = PrometheusMetricsFactory(registry: registry)
        f.durationHistogramBuckets["rulekit_request_duration_seconds"] = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
        ]
        f.durationHistogramBuckets["rulekit_block_stage_duration_seconds"] = f.durationHistogramBuckets["rulekit_request_duration_seconds"]
        factory = f
        eventsIn = Metrics.Counter(label: "rulekit_events_in_total", factory: f)
        eventsOut = Metrics.Counter(label: "rulekit_events_out_total", factory: f)
        requests = Metrics.Counter(label: "rulekit_requests_total", factory: f)
        rejected = Metrics.Counter(label: "rulekit_requests_rejected_total", factory: f)
        latency = Metrics.Timer(label: "rulekit_request_duration_seconds", factory: f)
        reloads = Metrics.Counter(label: "rulekit_rules_reloads_total", factory: f)
        reloadFailures = Metrics.Counter(label: "rulekit_rules_reload_failures_total", factory: f)
        rulesPolls = Metrics.Counter(label: "rulekit_rules_polls_total", factory: f)
        rulesPollFailures = Metrics.Counter(label: "rulekit_rules_poll_failures_total", factory: f)
        queueDepth = Metrics.Gauge(label: "rulekit_queue_depth", factory: f)
        let stage = "rulekit_block_stage_duration_seconds"
        stageRead = Metrics.Timer(label: stage, dimensions: [("stage", "read")], factory: f)
        stageEvaluate = Metrics.Timer(label: stage, dimensions: [("stage", "evaluate")], factory: f)
        stageWrite = Metrics.Timer(label: stage, dimensions: [("stage", "write")], factory: f)
    }

    /// Records where one block's time went.
    func timed(_ t: BlockTiming) {
        if let read = t.read { stageRead.recordNanoseconds(Self.nanoseconds(read)) }
        stageEvaluate.recordNanoseconds(Self.nanoseconds(t.evaluate))
        if let write = t.write { stageWrite.recordNanoseconds(Self.nanoseconds(write)) }
    }

    private static func nanoseconds(_ d: Duration) -> Int64 {
        let (seconds, attoseconds) = d.components
        let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? Int64.max : ns.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }

    /// A worker's count of matches per rule: each worker counts into its own, and the counts move onto
    /// the registry's counters when the metrics are read. Counted straight onto the shared counters, every
    /// match would take the table's lock and the counter's atomics against the other workers.
    func tally() -> FiredTally {
        let t = FiredTally()
        tallies.withLock { $0.append(t) }
        return t
    }

    /// Moves every worker's counts onto the per-rule counters.
    private func collectFired() {
        let factory = self.factory
        for t in tallies.withLock({ $0 }) {
            let counts = t.take()
            guard !counts.isEmpty else { continue }
            let counters = firedCounters.withLock { table in
                counts.map { label, n -> (Metrics.Counter, Int) in
                    if let c = table[label] { return (c, n) }
                    let key = table.count < Self.maxRuleLabels ? label : "other"
                    if let c = table[key] { return (c, n) }
                    let c = Metrics.Counter(label: "rulekit_rules_fired_total", dimensions: [("rule", key)], factory: factory)
                    table[key] = c
                    return (c, n)
                }
            }
            for (c, n) in counters { c.increment(by: Int64(n)) }
        }
    }

    /// The Prometheus text exposition, with the history's breaker and spool as they are now.
    func render(history h: BlockHistory.Status, versions: [RemoteVersion] = [], postbacks: PostbackFigures? = nil) -> String {
        collectFired()
        var text = registry.emitToString()
        let lines: [(String, String, String, Int)] = [
            ("rulekit_history_ready", "gauge", "1 while the history store answers (breaker closed)", h.open ? 0 : 1),
            ("rulekit_history_breaker_open", "gauge", "1 while the history breaker is open", h.open ? 1 : 0),
            ("rulekit_history_spool_records", "gauge", "records waiting in the spool", h.spooled),
            ("rulekit_history_spooled_total", "counter", "records that went to the spool", h.recordsSpooled),
            ("rulekit_history_errors_total", "counter", "history reads and writes that failed or timed out", h.failures),
            ("rulekit_history_writes_total", "counter", "history writes (one transaction each)", h.writes),
            ("rulekit_history_records_written_total", "counter", "history records the store took", h.recordsWritten),
            ("rulekit_history_prefetches_total", "counter", "blocks whose history was read from the store", h.prefetches),
            ("rulekit_history_refused_total", "counter", "batches refused: their history could be kept nowhere", h.refused),
        ]
        var all = lines
        if let p = postbacks {
            all += [
                ("rulekit_postbacks_queued", "gauge", "postbacks waiting in the queue", p.depth),
                ("rulekit_postbacks_dead_letters", "gauge", "postbacks kept as dead letters", p.dead),
                ("rulekit_postbacks_delivered_total", "counter", "postbacks delivered (answered 2xx)", p.delivered),
                ("rulekit_postbacks_retried_total", "counter", "postback sends that failed and will be retried", p.retried),
                ("rulekit_postbacks_dead_lettered_total", "counter", "postbacks moved to the dead letters", p.deadLettered),
                (
                    "rulekit_postbacks_refused_total", "counter", "pb/pii consequences that make no postback (no URL, pii not https)",
                    p.refused
                ),
            ]
        }
        for (name, type, help, value) in all { text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n" }
        if let p = postbacks {
            text += "# HELP rulekit_postbacks_oldest_age_seconds how long the oldest waiting postback has waited\n"
            text += "# TYPE rulekit_postbacks_oldest_age_seconds gauge\nrulekit_postbacks_oldest_age_seconds \(p.oldestAge)\n"
        }
        if !versions.isEmpty {
            text += "# HELP rulekit_rules_version_info the version in force of each rules URL (its ETag and body hash)\n"
            text += "# TYPE rulekit_rules_version_info gauge\n"
            for v in versions {
                let labels = [("url", v.url), ("etag", v.etag ?? ""), ("hash", v.bodyHash)].map { "\($0)=\"\(Self.escaped($1))\"" }
                text += "rulekit_rules_version_info{\(labels.joined(separator: ","))} 1\n"
            }
        }
        return text
    }

    /// A Prometheus label value: backslash, quote and newline escaped.
    static func escaped(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(
            of: "\n", with: "\\n")
    }
}

/// Matches per rule counted by one worker since the metrics were last read.
final class FiredTally: Sendable {
    /// Each rule's count, and the rules in the order they first matched since the last read (so that the
    /// first rules to match are the ones named, as when each match went straight to the counters).
    private let counts = Locked<(n: [String: Int], order: [String])>(([:], []))

    /// Counts one match of each rule in `labels`.
    func add(_ labels: [String]) {
        counts.withLock { c in
            for label in labels {
                if let i = c.n.index(forKey: label) {
                    c.n.values[i] += 1
                } else {
                    c.n[label] = 1
                    c.order.append(label)
                }
            }
        }
    }

    /// The counts so far, in the order the rules first matched, leaving none.
    func take() -> [(label: String, count: Int)] {
        counts.withLock { c in
            defer { c = ([:], []) }
            return c.order.map { ($0, c.n[$0] ?? 0) }
        }
    }
}
