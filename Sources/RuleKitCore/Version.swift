/// RuleKit's version: the one place it is written. Extensions report it, the hub's shared state carries
/// it, `~sdkver` reads it and `rulekit --version` prints it. CHANGELOG.md says what each version changed.
public enum RuleKitVersion {
    /// The release, as `rulekit --version` prints it.
    public static let current = "0.2.0-dev"
}
