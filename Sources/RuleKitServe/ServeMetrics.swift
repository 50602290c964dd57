// The service's metrics, through swift-metrics onto a Prometheus registry of its own (no process-wide
// bootstrap: two services in one process, as in tests, keep apart). `GET /metrics` renders the registry.
internal import Foundation
internal import Metrics
internal import Prometheus
internal import RuleKitCore
internal import RuleKitExtension

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
    let queueDepth: Metrics.Gauge
    /// How long blocks spent reading history, evaluating, and waiting for their records to be durable.
    let stageRead: Metrics.Timer
    let stageEvaluate: Metrics.Timer
    let stageWrite: Metrics.Timer
    /// Per-rule counters, made on first use; past `maxRuleLabels` rules they share one `other` counter, so
    /// a rule set of any size keeps the exposition bounded.
    private let firedCounters = Locked<[String: Metrics.Counter]>([:])
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

    /// Counts one firing of each rule in `labels`.
    func fired(_ labels: [String]) {
        let factory = self.factory
        let counters = firedCounters.withLock { table in
            labels.map { label -> Metrics.Counter in
                if let c = table[label] { return c }
                let key = table.count < Self.maxRuleLabels ? label : "other"
                if let c = table[key] { return c }
                let c = Metrics.Counter(label: "rulekit_rules_fired_total", dimensions: [("rule", key)], factory: factory)
                table[key] = c
                return c
            }
        }
        for c in counters { c.increment() }
    }

    /// The Prometheus text exposition, with the history's breaker and spool as they are now.
    func render(history h: BlockHistory.Status) -> String {
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
        for (name, type, help, value) in lines { text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n" }
        return text
    }
}
