// The library's logs go through swift-log: a host decides where they go (`rulekit` writes them to standard
// error as `rulekit: message`; a service to its log pipeline).
public import Logging

/// RuleKit's loggers, by subsystem.
public enum RuleKitLog {
    /// The rules extension: loads, reloads, cut consequence chains.
    public static let rules = Logger(label: "rulekit.rules")
    /// XDM alignment findings.
    public static let xdm = Logger(label: "rulekit.xdm")
    /// The postback extension: hits passed over, refused or not queued, queues cleared by an opt-out.
    public static let postbacks = Logger(label: "rulekit.postbacks")
}
