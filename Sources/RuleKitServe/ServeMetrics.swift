// The service's metrics, through swift-metrics onto a Prometheus registry of its own (no process-wide
// bootstrap: two services in one process, as in tests, keep apart). `GET /metrics` renders the registry.
internal import Foundation
internal import Metrics
internal import Prometheus
internal import RuleKitCore

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
    let historyErrors: Metrics.Counter
    let historySpooled: Metrics.Counter
    let historyDropped: Metrics.Counter
    let queueDepth: Metrics.Gauge
    /// 1 once the history database has answered and has its table (PostgreSQL), else 0.
    let historyReady: Metrics.Gauge
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
        factory = f
        eventsIn = Metrics.Counter(label: "rulekit_events_in_total", factory: f)
        eventsOut = Metrics.Counter(label: "rulekit_events_out_total", factory: f)
        requests = Metrics.Counter(label: "rulekit_requests_total", factory: f)
        rejected = Metrics.Counter(label: "rulekit_requests_rejected_total", factory: f)
        latency = Metrics.Timer(label: "rulekit_request_duration_seconds", factory: f)
        reloads = Metrics.Counter(label: "rulekit_rules_reloads_total", factory: f)
        reloadFailures = Metrics.Counter(label: "rulekit_rules_reload_failures_total", factory: f)
        historyErrors = Metrics.Counter(label: "rulekit_history_errors_total", factory: f)
        historySpooled = Metrics.Counter(label: "rulekit_history_spooled_total", factory: f)
        historyDropped = Metrics.Counter(label: "rulekit_history_spool_dropped_total", factory: f)
        queueDepth = Metrics.Gauge(label: "rulekit_queue_depth", factory: f)
        historyReady = Metrics.Gauge(label: "rulekit_history_ready", factory: f)
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

    /// The Prometheus text exposition.
    func render() -> String { registry.emitToString() }
}
