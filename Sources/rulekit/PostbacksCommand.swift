import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitPostbacks

/// `rulekit postbacks`: a postback queue at rest — its figures, its dead letters listed, sent again or removed.
struct PostbacksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postbacks",
        abstract: "A postback queue no process is sending: its figures; its dead letters listed, retried or purged.",
        discussion: """
            The queue is the postbacks.sqlite of a `run --data-dir` folder or of a `serve --postbacks` folder. A \
            queue that a live process holds is refused (stop it first). Retried dead letters are sent by the next \
            process that opens the queue.

            Example:
              rulekit postbacks status --dir /var/lib/rulekit/postbacks
              rulekit postbacks dead --dir /var/lib/rulekit/postbacks
              rulekit postbacks retry --dir /var/lib/rulekit/postbacks
            """,
        subcommands: [Status.self, Dead.self, Retry.self, Purge.self]
    )

    struct Folder: ParsableArguments {
        @Option(help: "The folder holding postbacks.sqlite (a run's --data-dir, a server's --postbacks).")
        var dir: String

        /// The queue, held for this command; exit 2 when there is none or a live process holds it.
        func open() throws -> PostbackQueue {
            guard FileManager.default.fileExists(atPath: PathText.join(dir, "postbacks.sqlite")) else {
                Stderr.write("error: no postback queue in '\(dir)'\n")
                throw ExitCode(2)
            }
            do { return try PostbackQueue(directory: dir) } catch {
                Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
                if error.diagnostics.contains(where: { $0.code == "postbacks.busy" }) {
                    Stderr.write("hint: stop the process that sends this queue first; a server's figures are in its /metrics\n")
                }
                throw ExitCode(2)
            }
        }

        /// `body` on the queue; exit 2 naming a database error.
        func with<T>(_ body: (PostbackQueue) throws -> T) throws -> T {
            let queue = try open()
            do { return try body(queue) } catch {
                Stderr.write("error: the postback queue cannot be used: \(error)\n")
                throw ExitCode(2)
            }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Hits waiting, dead letters, and the age of the oldest hit waiting.")
        @OptionGroup var folder: Folder

        func run() throws {
            let (depth, dead, oldest) = try folder.with { q in (try q.depth(), try q.deadCount(), try q.oldestQueuedAt()) }
            var o: ValueObject = ["queued": .int(Int64(depth)), "deadLetters": .int(Int64(dead))]
            if let oldest { o["oldestAgeSeconds"] = .double(max(0, Date().timeIntervalSince1970 - oldest)) }
            Stdout.print(JSONWriter.string(.object(o)))
        }
    }

    struct Dead: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dead",
            abstract: "The dead letters, one JSON object a line, oldest first (the body left out: it may hold personal data).")
        @OptionGroup var folder: Folder

        func run() throws {
            for d in try folder.with({ try $0.deadLetters() }) { Stdout.print(JSONWriter.string(.object(d.summary))) }
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry", abstract: "Puts every dead letter back in the queue, attempts from 0.")
        @OptionGroup var folder: Folder

        func run() throws {
            let n = try folder.with { try $0.retryDeadLetters() }
            Stdout.print("retried \(n) dead letter\(n == 1 ? "" : "s"); the next process sending this queue delivers them")
        }
    }

    struct Purge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge", abstract: "Removes every dead letter.")
        @OptionGroup var folder: Folder

        func run() throws {
            let n = try folder.with { try $0.purgeDeadLetters() }
            Stdout.print("purged \(n) dead letter\(n == 1 ? "" : "s")")
        }
    }
}
