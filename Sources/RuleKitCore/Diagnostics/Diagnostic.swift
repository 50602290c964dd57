/// A position in a source file, 1-based.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The file's name as given to the reader (`-` or `<stdin>` for standard input).
    public var file: String
    /// One-based line.
    public var line: Int
    /// One-based column, in Unicode scalars.
    public var column: Int

    /// A location in `file` at one-based `line` and `column`.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// Orders by file name, then line, then column.
    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.file, a.line, a.column) < (b.file, b.line, b.column)
    }

    /// `file:line:column`.
    public var description: String { "\(file):\(line):\(column)" }
}

/// How bad a finding is.
public enum Severity: String, Sendable, Hashable, Comparable, Codable {
    case error, warning, note

    private var rank: Int {
        switch self {
        case .error: 0
        case .warning: 1
        case .note: 2
        }
    }

    /// Errors sort before warnings, warnings before notes.
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// A stable identifier for a kind of finding (`yaml.syntax`, `rules.unknown-matcher`, ...).
///
/// An extensible struct rather than an enum, so modules add codes without breaking callers.
public struct DiagnosticCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The dotted code, e.g. `yaml.syntax`.
    public var rawValue: String
    /// Wraps a code's text.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A code written as a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The code's text.
    public var description: String { rawValue }

    /// Malformed JSON.
    public static let jsonSyntax: DiagnosticCode = "json.syntax"
    /// Malformed YAML.
    public static let yamlSyntax: DiagnosticCode = "yaml.syntax"
    /// A YAML mapping repeats a key.
    public static let yamlDuplicateKey: DiagnosticCode = "yaml.duplicate-key"
    /// A YAML feature RuleKit does not read (complex keys, several documents, ...).
    public static let yamlUnsupported: DiagnosticCode = "yaml.unsupported"
    /// A YAML tag that is not one of the core schema's.
    public static let yamlBadTag: DiagnosticCode = "yaml.bad-tag"
    /// A YAML 1.1 boolean (`yes`, `off`, ...) read as a string under YAML 1.2.
    public static let yaml11Boolean: DiagnosticCode = "yaml.yaml11-boolean"
    /// An input passed one of the reader's `ReaderLimits`.
    public static let limitExceeded: DiagnosticCode = "input.limit-exceeded"
    /// A file, folder or stream that cannot be read.
    public static let unreadable: DiagnosticCode = "input.unreadable"
}

/// One problem found in an input, with where it is.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// Whether it stops the load (`error`) or only informs.
    public var severity: Severity
    /// The kind of finding, stable across releases.
    public var code: DiagnosticCode
    /// What is wrong, for a person (capped at 1,000 characters).
    public var message: String
    /// Where the offending node starts, when the input had positions.
    public var location: SourceLocation?
    /// The JSON pointer of the value concerned, when known (`/rules/3/condition`).
    public var pointer: String?
    /// What a "did you mean" proposes in place of the key or code at `location`: the fix an editor offers.
    public var suggestion: String?
    /// The rule the finding is about (its id, or `#index` in its file when it has none), when it is about one:
    /// lint's JSON and SARIF, and the report's findings by rule, read it here rather than from the message.
    public var rule: String?

    /// A finding; `message` is cut to its cap.
    public init(
        _ severity: Severity, _ code: DiagnosticCode, _ message: String,
        at location: SourceLocation? = nil, pointer: String? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = Diagnostic.bounded(message)
        self.location = location
        self.pointer = pointer.map(Diagnostic.bounded)
    }

    /// Longest message kept, in characters: a message that quotes user text (a key, a value, a line)
    /// stays readable however long that text is.
    public static let maxMessageLength = 1000

    /// `text`, cut to `maxMessageLength` characters with a note of how much was left out.
    public static func bounded(_ text: String) -> String {
        guard text.utf8.count > maxMessageLength else { return text }
        let kept = text.prefix(maxMessageLength)
        let rest = text.count - kept.count
        return rest > 0 ? kept + "... (\(rest) more characters)" : text
    }

    /// This finding, proposing `replacement` for the text at its location.
    public func suggesting(_ replacement: String?) -> Diagnostic {
        var d = self
        d.suggestion = replacement
        return d
    }

    /// This finding, about the rule labelled `label`.
    public func about(rule label: String?) -> Diagnostic {
        var d = self
        d.rule = label
        return d
    }

    /// An error-severity finding.
    public static func error(
        _ code: DiagnosticCode, _ message: String, at location: SourceLocation? = nil, pointer: String? = nil
    ) -> Diagnostic {
        Diagnostic(.error, code, message, at: location, pointer: pointer)
    }

    /// A warning-severity finding.
    public static func warning(
        _ code: DiagnosticCode, _ message: String, at location: SourceLocation? = nil, pointer: String? = nil
    ) -> Diagnostic {
        Diagnostic(.warning, code, message, at: location, pointer: pointer)
    }

    /// The one-line form: `path:line:column: error: message` (without the source excerpt).
    public var description: String {
        var s = ""
        if let l = location { s += "\(l): " }
        s += "\(severity.rawValue): \(message)"
        if let p = pointer, location == nil || !p.isEmpty { s += " [at \(p.isEmpty ? "/" : p)]" }
        s += " [\(code)]"
        return s
    }
}

/// A bag of diagnostics that a load or check fills: capped, and sorted when read.
public struct Diagnostics: Sendable {
    /// The kept findings, in the order they were added.
    public private(set) var items: [Diagnostic] = []
    /// How many were dropped past the cap.
    public private(set) var dropped = 0
    /// How many errors, and apart from them how many other findings, are kept.
    public let cap: Int

    /// An empty bag keeping at most `cap` errors and `cap` other findings.
    public init(cap: Int = 200) { self.cap = cap }

    private var errors = 0
    private var others = 0
    /// Set by any error, kept or dropped: a load with an error fails whatever the cap.
    private var sawError = false

    /// Errors and other findings are capped apart, so a flood of warnings never hides an error (and a
    /// load never succeeds because its error fell past the cap).
    public mutating func append(_ d: Diagnostic) {
        if d.severity == .error {
            sawError = true
            guard errors < cap else {
                dropped += 1
                return
            }
            errors += 1
        } else {
            guard others < cap else {
                dropped += 1
                return
            }
            others += 1
        }
        items.append(d)
    }

    /// Whether another warning would be kept: callers skip building messages that would be dropped.
    public var acceptsWarnings: Bool { others < cap }

    /// Counts a finding that was not built because it would have been dropped.
    public mutating func countDropped() { dropped += 1 }

    /// Adds each finding as `append(_:)` does.
    public mutating func append(contentsOf ds: some Sequence<Diagnostic>) {
        for d in ds { append(d) }
    }

    /// Whether any error was added, kept or dropped.
    public var hasErrors: Bool { sawError }
    /// How many errors are kept.
    public var errorCount: Int { errors }
    /// Whether no finding is kept.
    public var isEmpty: Bool { items.isEmpty }

    /// Sorted by file, line, column; those without a location last, in the order found.
    public var sorted: [Diagnostic] {
        items.enumerated().sorted { a, b in
            switch (a.element.location, b.element.location) {
            case (let x?, let y?): return x == y ? a.offset < b.offset : x < y
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.offset < b.offset
            }
        }.map(\.element)
    }
}

/// Thrown by readers and loaders: every problem they found, errors first in location order.
public struct DiagnosticError: Error, Sendable, CustomStringConvertible {
    /// The findings, errors first in location order.
    public var diagnostics: [Diagnostic]

    /// An error carrying several findings.
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
    /// An error carrying one finding.
    public init(_ diagnostic: Diagnostic) { self.diagnostics = [diagnostic] }

    /// One finding per line, as `Diagnostic.description` renders them.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
