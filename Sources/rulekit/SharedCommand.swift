import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitShared

/// `rulekit shared`: look into and change a shared data container from the shell (and from tests that
/// need several real processes on one container).
struct SharedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared",
        abstract: "Read and change collections of a shared data container.",
        discussion: """
            A container is a directory of collections that several processes use at once: reads always see \
            the persisted value, writes are atomic, and updates are serialised across processes.

            Example:
              rulekit shared set .rulekit/shared session '{"state":"anonymous"}'
              rulekit shared increment .rulekit/shared counters --key launches
              rulekit shared get .rulekit/shared counters
            """,
        subcommands: [Get.self, Set.self, Increment.self, List.self]
    )

    static func open(_ dir: String) throws -> SharedContainer {
        do { return try SharedContainer(directory: URL(fileURLWithPath: dir)) } catch {
            Stderr.write("error: \(error)\n")
            throw ExitCode(2)
        }
    }

    static func fail(_ error: any Error) -> ExitCode {
        Stderr.write("error: \(error)\n")
        return ExitCode(error is SharedContainerError ? 1 : 2)
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a collection as JSON (exit 1 if absent or corrupt).")
        @Argument(help: "The container directory.") var container: String
        @Argument(help: "The collection.") var collection: String
        func run() throws {
            do {
                guard let v = try SharedCommand.open(container).read(collection) else {
                    Stderr.write("error: no collection '\(collection)'\n")
                    throw ExitCode(1)
                }
                print(JSONWriter.string(v))
            } catch let e as ExitCode { throw e } catch { throw SharedCommand.fail(error) }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replace a collection with a JSON value.")
        @Argument(help: "The container directory.") var container: String
        @Argument(help: "The collection.") var collection: String
        @Argument(help: "The new value, as JSON.") var json: String
        func run() throws {
            let value: Value
            do { value = try JSONReader.read(Array(json.utf8), file: "<argument>").value } catch {
                Stderr.write("error: \(error)\n")
                throw ExitCode(2)
            }
            do { try SharedCommand.open(container).write(collection, value) } catch let e as ExitCode { throw e } catch {
                throw SharedCommand.fail(error)
            }
        }
    }

    struct Increment: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add 1 to an integer member of a collection, atomically across processes.")
        @Argument(help: "The container directory.") var container: String
        @Argument(help: "The collection (an object).") var collection: String
        @Option(help: "The member to increment.") var key = "count"
        @Option(help: "How many increments, each its own locked update.") var times = 1
        func run() throws {
            do {
                let c = try SharedCommand.open(container)
                for _ in 0..<times {
                    try c.update(collection) { old in
                        var o = old?.objectValue ?? [:]
                        o[key] = .int((o[key]?.intValue ?? 0) + 1)
                        return .object(o)
                    }
                }
            } catch let e as ExitCode { throw e } catch { throw SharedCommand.fail(error) }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the collections of a container.")
        @Argument(help: "The container directory.") var container: String
        func run() throws {
            for name in try SharedCommand.open(container).collections() { print(name) }
        }
    }
}
