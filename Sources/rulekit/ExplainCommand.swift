import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitExtension
import RuleKitRules
import RuleKitSources

/// `rulekit explain`: every rule against one event, matcher by matcher.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show, for one event, whether each rule matched and why.",
        discussion: """
            For every rule: matched or not; for every matcher: the key, the value it resolved to, the \
            conversion the matcher value's type chose, and the outcome (match, no match, or error).

            Example:
              rulekit explain --event Examples/purchase-event.json \\
                --state com.adobe.module.configuration=Examples/state.json
            """
    )

    @Option(help: "The event: a JSON object {name, type, source, data}.")
    var event: String

    @Option(name: .long, help: "Rules file, folder, zip or https URL (repeatable; default Rules/).")
    var rules: [String] = []

    @OptionGroup var stateOptions: StateArguments

    @OptionGroup var check: CheckOptions

    @OptionGroup var fetch: FetchOptions

    func run() throws {
        let sources: RuleSnapshot
        let states: [String: ValueObject]
        let xdm: [String: ValueObject]
        let e: Event
        do {
            sources = try RuleSnapshot.loadOrExit(RuleProject(rules: rules).rules, fetch: fetch)
            states = try StateOptions.parse(stateOptions.state)
            xdm = try StateOptions.parse(stateOptions.xdmState)
            guard let read = try Self.readEvent(event) else {
                Stderr.write("error: the event file must hold a JSON object\n")
                throw ExitCode(2)
            }
            e = read
        } catch let e as InputError {
            switch e {
            case .unreadable(let m): Stderr.write("error: \(m)\n")
            case .invalid(let d, let source):
                var r = DiagnosticRenderer()
                r.addSource(source, for: event)
                Stderr.write(r.render(d.diagnostics) + "\n")
            }
            throw ExitCode(2)
        }
        try sources.admit(check)
        let compiled = sources.compiled
        var r = Resolver(event: e, runtime: StaticRulesRuntime(states: states, xdmStates: xdm), slotCount: compiled.slotCount)
        Stdout.print(ExplainText.render(Evaluator.explain(compiled, &r)), terminator: "")
    }

    /// The event a file describes (nil when it holds no object). A JSON file's data is read as a tape, as
    /// `rulekit run` reads its input, so the rules resolve their keys the same way; YAML (and standard
    /// input, which may be either) is read as a document.
    static func readEvent(_ path: String) throws(InputError) -> Event? {
        guard path != "-", InputFormat.guess(path) == .json else {
            guard let doc = try InputFiles.documents(path).first, case .object(let o) = doc.value else { return nil }
            // The event check of every reader of events (`EventShape`), as serve applies it.
            if let p = EventShape.problem(doc.value) {
                throw .invalid(DiagnosticError(EventJSON.invalid(p, file: InputFiles.displayName(path), line: 1)), source: "")
            }
            return EventJSON.event(o)
        }
        let raw = try InputFiles.bytes(path)
        do throws(DiagnosticError) {
            let name = InputFiles.displayName(path)
            let read = try JSONReader.read(raw[...], file: name, tapeOf: "data")
            guard case .object(let o) = read.value else { return nil }
            if let p = EventShape.problem(read.value, dataInTape: read.tape != nil) {
                throw DiagnosticError(EventJSON.invalid(p, file: name, line: 1))
            }
            return EventJSON.event(o, dataText: read.memberText, document: read.tape)
        } catch {
            throw .invalid(error, source: String(decoding: raw, as: UTF8.self))
        }
    }
}
