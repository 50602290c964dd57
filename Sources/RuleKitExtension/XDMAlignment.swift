internal import Foundation
public import RuleKitCore
internal import RuleKitHub
public import RuleKitXDM

/// Keeps XDM data aligned with `Schemas/`: the XDM that rules attach or modify, and the XDM shared states
/// extensions publish.
///
/// Policy `warn` (default) lets the data through and reports each misaligned path (an event and a log
/// line); `enforce` first coerces values a token rendered as strings to the schema's type, then drops
/// the fields that still do not fit, and reports what it did. Never silent.
public struct XDMAlignment: Sendable {
    /// What to do with a misaligned path: report it (`warn`) or repair and report (`enforce`).
    public enum Policy: String, Sendable, CaseIterable {
        case warn, enforce
    }

    /// The type of alignment-finding events.
    public static let diagnosticsEventType = "com.rulekit.eventType.xdm"
    /// The source of alignment-finding events.
    public static let diagnosticsEventSource = "com.rulekit.eventSource.diagnostics"

    /// What is done with misaligned paths.
    public var policy: Policy
    /// The composed ExperienceEvent schema's validator.
    public let validator: JSONSchemaValidator
    /// The composed schema's leaf paths.
    public let catalog: XDMPathCatalog

    /// Aligns with `classID` and its field groups (all those loaded for it when `fieldGroups` is nil).
    ///
    /// - Parameters:
    ///   - registry: the loaded schemas.
    ///   - classID: the class's `$id`.
    ///   - fieldGroups: the field groups' `$id`s (nil: every one loaded for the class).
    ///   - policy: what is done with misaligned paths.
    /// - Throws: `DiagnosticError` when the schema cannot be composed.
    public init(registry: XDMRegistry, classID: String, fieldGroups: [String]? = nil, policy: Policy = .warn)
        throws(DiagnosticError)
    {
        let schema = try registry.compose(class: classID, fieldGroups: fieldGroups ?? registry.fieldGroups(for: classID))
        validator = schema.validator
        catalog = schema.catalog
        self.policy = policy
    }

    /// The same schema with another policy (shared states are another extension's: only reported).
    init(copying other: XDMAlignment, policy: Policy) {
        validator = other.validator
        catalog = other.catalog
        self.policy = policy
    }

    /// One misaligned path and what was done about it.
    public struct Finding: Sendable, Hashable {
        /// Whether the value stayed, was coerced to the schema's type, or was removed.
        public enum Action: String, Sendable { case kept, coerced, dropped }
        /// The path, as a JSON pointer.
        public var path: String
        /// What the schema says is wrong.
        public var message: String
        /// What was done.
        public var action: Action
    }

    /// Checks `xdm` (a partial payload: required fields are not its business) and, under `enforce`,
    /// repairs it.
    ///
    /// - Parameter xdm: the payload.
    /// - Returns: the payload (repaired under `enforce`) and the findings.
    public func align(_ xdm: Value) -> (Value, [Finding]) {
        let errors = validator.validate(xdm).filter { !$0.schemaPath.hasSuffix("/required") }
        guard !errors.isEmpty else { return (xdm, []) }
        guard policy == .enforce else {
            return (xdm, errors.map { Finding(path: $0.instancePath, message: $0.message, action: .kept) })
        }
        var fixed = xdm
        var findings: [Finding] = []
        for e in errors {
            let dotted = Self.dotted(e.instancePath)
            guard !dotted.isEmpty else { continue }
            if case .string? = fixed.value(atPath: dotted), let v = fixed.value(atPath: dotted),
                case .success(let coerced) = XDMCoercion.coerce(v, at: dotted, in: catalog)
            {
                fixed.setValue(coerced, atPath: dotted)
                if validator.validate(fixed).filter({ $0.instancePath == e.instancePath }).isEmpty {
                    findings.append(Finding(path: e.instancePath, message: e.message, action: .coerced))
                    continue
                }
            }
            fixed.setValue(nil, atPath: dotted)
            findings.append(Finding(path: e.instancePath, message: e.message, action: .dropped))
        }
        return (fixed, findings)
    }

    static func dotted(_ pointer: String) -> String {
        pointer.split(ascii: UInt8(ascii: "/"), omittingEmpty: true).map(\.unescapedPointerToken).joined(separator: ".")
    }

    /// The diagnostics event for findings about `subject` (an event id or an extension's state).
    static func report(_ findings: [Finding], subject: String, policy: Policy, cause: Event? = nil) -> Event {
        for f in findings {
            RuleKitLog.xdm.warning(
                "XDM \(policy.rawValue): \(subject) at \(f.path.isEmpty ? "/" : f.path): \(f.message) (\(f.action.rawValue))")
        }
        // Caused by the event whose data was checked: a host waiting for everything an event caused waits
        // for its report too.
        let data: ValueObject = [
            "subject": .string(subject), "policy": .string(policy.rawValue),
            "findings": .array(
                findings.map {
                    [
                        "path": .string($0.path), "message": .string($0.message),
                        "action": .string($0.action.rawValue),
                    ]
                }),
        ]
        return Event(
            name: "XDM alignment", type: diagnosticsEventType, source: diagnosticsEventSource, data: data, parentID: cause?.id)
    }
}
