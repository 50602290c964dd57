// Findings written for machines: lint's JSON lines and SARIF 2.1.0, which CI systems read.
public import RuleKitCore

/// Findings in the formats `rulekit lint --format json|sarif` writes.
public enum FindingReport {
    /// One finding as lint's JSON object: severity, code, message, file, line, column, rule.
    ///
    /// - Parameter d: the finding.
    /// - Returns: the object.
    public static func json(_ d: Diagnostic) -> Value {
        var o: ValueObject = [
            "severity": .string(d.severity.rawValue), "code": .string(d.code.rawValue),
            "message": .string(d.message),
        ]
        if let l = d.location {
            o["file"] = .string(l.file)
            o["line"] = .int(Int64(l.line))
            o["column"] = .int(Int64(l.column))
        }
        if let id = d.rule { o["rule"] = .string(id) }
        return .object(o)
    }

    /// Findings as one SARIF 2.1.0 log (GitHub code scanning and other SARIF readers): a rule per code, a
    /// result per finding with its level, message, rule and location.
    ///
    /// - Parameter findings: the findings, in the order they are to be listed.
    /// - Returns: the SARIF log.
    public static func sarif(_ findings: [Diagnostic]) -> Value {
        let codes = Array(Set(findings.map(\.code.rawValue))).sorted()
        let results: [Value] = findings.map { d in
            var r: ValueObject = [
                "ruleId": .string(d.code.rawValue),
                "level": .string(d.severity == .error ? "error" : d.severity == .warning ? "warning" : "note"),
                "message": ["text": .string(d.message)],
            ]
            if let id = d.rule { r["properties"] = ["rule": .string(id)] }
            if let l = d.location {
                r["locations"] = [
                    [
                        "physicalLocation": [
                            "artifactLocation": ["uri": .string(l.file)],
                            "region": ["startLine": .int(Int64(l.line)), "startColumn": .int(Int64(l.column))],
                        ]
                    ]
                ]
            }
            return .object(r)
        }
        return [
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [
                [
                    "tool": [
                        "driver": [
                            "name": "rulekit", "informationUri": "https://rulekit.dev",
                            "rules": .array(codes.map { ["id": .string($0)] }),
                        ]
                    ],
                    "results": .array(results),
                ]
            ],
        ]
    }
}
