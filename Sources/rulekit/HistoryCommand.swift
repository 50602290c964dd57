import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitHistory

/// `rulekit history`: what event history keeps, read-only: one identity's records, or the store's figures.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "What event history keeps of a person: export or delete one identity's records; the store's figures.",
        discussion: """
            The store is a `rulekit run --data-dir` folder or a `serve --history` location. A SQLite history \
            that a live process holds is refused (stop it first); PostgreSQL is read while servers write it.

            Example:
              rulekit history stats --data-dir /tmp/rulekit-data
              rulekit history export --data-dir /tmp/rulekit-data --identity 12345678
              rulekit history delete --data-dir /tmp/rulekit-data --identity 12345678
            """,
        subcommands: [Export.self, Delete.self, Stats.self]
    )

    /// Which store: a folder of `history.sqlite`, or a location as `serve --history` takes it.
    struct Store: ParsableArguments {
        @Option(name: .customLong("data-dir"), help: "The folder whose history.sqlite to read (as `run --data-dir` keeps it).")
        var dataDir: String?

        @Option(help: "The history: sqlite:FILE or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.")
        var history: String?

        func validate() throws {
            guard (dataDir == nil) != (history == nil) else { throw ValidationError("give one of --data-dir and --history") }
            if let history {
                guard let l = HistoryLocation(history) else {
                    throw ValidationError("--history takes sqlite:FILE or postgres://USER@HOST/DATABASE, not '\(history)'")
                }
                if l == .memory { throw ValidationError("a memory history lives in the process that keeps it; there is none to read") }
            }
        }

        /// The store's location; exit 2 for a SQLite file that does not exist (reading must not make one).
        func location() throws -> HistoryLocation {
            let l = dataDir.map { HistoryLocation.sqlite(PathText.join($0, "history.sqlite")) } ?? history.flatMap(HistoryLocation.init)
            guard let l else { throw ExitCode(2) }
            if case .sqlite(let file) = l, !FileManager.default.fileExists(atPath: file) {
                Stderr.write("error: no history at '\(file)'\n")
                throw ExitCode(2)
            }
            return l
        }

        /// Runs `body` on the opened store (its database client running meanwhile); exit 2 when it cannot
        /// be opened or answers an error.
        func read<T: Sendable>(_ body: @escaping @Sendable (any HistoryExporting) async throws -> T) throws -> T {
            let opened: HistoryLocation.Opened
            do { opened = try location().open() } catch let e as DiagnosticError {
                Stderr.write(DiagnosticRenderer().render(e.diagnostics) + "\n")
                if e.diagnostics.contains(where: { $0.message.contains("in use by another process") }) {
                    Stderr.write(
                        "hint: a live `rulekit serve` holds it: ask that server instead (GET or DELETE /v1/history/{identity}, "
                            + "or POST /v1/history/export|delete, with a token of its --admin-token-file)\n")
                }
                throw ExitCode(2)
            }
            guard let store = opened.backend as? any HistoryExporting else { throw ExitCode(2) }
            let outcome: Result<T, any Error> = try BlockingTask.run {
                let client = opened.client.map { c in Task { try? await c.run() } }
                defer { client?.cancel() }
                do {
                    try await opened.backend.ready()
                    return .success(try await body(store))
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let v): return v
            case .failure(let e):
                Stderr.write("error: the history cannot be read: \(e)\n")
                throw ExitCode(2)
            }
        }
    }

    static func iso(_ ms: Double) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date(timeIntervalSince1970: ms / 1000))
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Print one identity's records as JSON lines, oldest first (none: nothing printed).")

        @OptionGroup var store: Store

        @Option(help: "The identity, as events carry it (e.g. an ECID).")
        var identity: String

        func run() throws {
            let id = identity
            let records = try store.read { try await $0.export(identity: id) }
            var out = StdoutBuffer()
            for r in records {
                out.write(JSONWriter.string(r.exported) + "\n")
            }
            out.flush()
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats", abstract: "Print the store's records, identities, oldest and newest record, as JSON.")

        @OptionGroup var store: Store

        func run() throws {
            let s = try store.read { try await $0.stats() }
            var o: ValueObject = ["records": .int(Int64(s.records)), "identities": .int(Int64(s.identities))]
            if let t = s.oldest { o["oldest"] = .string(HistoryCommand.iso(t)) }
            if let t = s.newest { o["newest"] = .string(HistoryCommand.iso(t)) }
            Stdout.print(JSONWriter.string(.object(o)))
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Erase one identity's records (all, or some masks', or a window's); prints how many went.",
            discussion: """
                The store keeps a tombstone (the identity, the time of the delete, its masks and window): a record \
                it covers that arrives later — a spool replayed, a retried batch, another server's late block — is \
                dropped on write.
                """)

        @OptionGroup var store: Store

        @Option(help: "The identity, as events carry it (e.g. an ECID).")
        var identity: String

        @Option(
            help:
                "A history mask as rules write it, as JSON (e.g. '{\"visit.page\":\"home\"}'), hashed as the engine hashes it (repeatable)."
        )
        var mask: [String] = []

        @Option(name: .customLong("mask-hash"), help: "A mask's hash as `history export` prints it (repeatable).")
        var maskHash: [UInt32] = []

        @Option(help: "Only records at or after this time (ISO 8601, or milliseconds since 1970).")
        var from: String?

        @Option(help: "Only records at or before this time (ISO 8601, or milliseconds since 1970).")
        var to: String?

        func run() throws {
            var hashes = Set(maskHash)
            for m in mask {
                guard case .object(let o)? = try? JSONReader.value(m) else {
                    Stderr.write("error: --mask takes a JSON object, not '\(m)'\n")
                    throw ExitCode(2)
                }
                hashes.insert(HistoryErasure.maskHash(o))
            }
            let erasure = HistoryErasure(
                identity: identity, hashes: mask.isEmpty && maskHash.isEmpty ? nil : hashes, from: try Self.time(from, "--from"),
                to: try Self.time(to, "--to"), at: Date().timeIntervalSince1970 * 1000)
            let gone = try store.read { try await $0.erase(erasure) }
            Stdout.print(JSONWriter.string(["deleted": .int(Int64(gone))]))
        }

        /// Milliseconds since 1970 from ISO 8601 or a number; exit 2 otherwise.
        static func time(_ text: String?, _ option: String) throws -> Double? {
            guard let text else { return nil }
            if let ms = HistoryErasure.milliseconds(text) { return ms }
            Stderr.write("error: \(option) takes ISO 8601 (2026-12-01T10:00:00Z) or milliseconds since 1970, not '\(text)'\n")
            throw ExitCode(2)
        }
    }
}
