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

    /// The container in `dir`; commands that only read it (`get`, `list`) do not create it, so a
    /// mistyped path is an error rather than a new empty folder.
    static func open(_ dir: String, create: Bool = true) throws -> SharedContainer {
        var isDir: ObjCBool = false
        if !create, !(FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) && isDir.boolValue) {
            Stderr.write("error: no shared container folder '\(dir)'\n")
            throw ExitCode(2)
        }
        do { return try SharedContainer(directory: URL(fileURLWithPath: dir)) } catch {
            Stderr.write("error: \(error)\n")
            throw ExitCode(2)
        }
    }

    static func fail(_ error: any Error) -> ExitCode {
        Stderr.write("error: \(error)\n")
        // What the container holds is a finding (1); a name that is no collection's, or a folder that
        // cannot be read or written, is bad usage or unreadable input (2).
        switch error {
        case SharedContainerError.corrupt, is IncrementError: return ExitCode(1)
        default: return ExitCode(2)
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Print a collection as JSON (exit 1 if absent or corrupt).")
        @Argument(help: "The container directory.") var container: String
        @Argument(help: "The collection.") var collection: String
        func run() throws {
            do {
                guard let v = try SharedCommand.open(container, create: false).read(collection) else {
                    Stderr.write("error: no collection '\(collection)'\n")
                    throw ExitCode(1)
                }
                Stdout.print(JSONWriter.string(v))
            } catch let e as ExitCode { throw e } catch { throw SharedCommand.fail(error) }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Replace a collection with a JSON value.")
        @Argument(help: "The container directory.") var container: String
        @Argument(help: "The collection.") var collection: String
        @Argument(help: "The new value, as JSON ('-' for standard input).") var json: String
        func run() throws {
            let value: Value
            do {
                let bytes = json == "-" ? try ByteInput.readAll("-") : Array(json.utf8)
                value = try JSONReader.read(bytes, file: json == "-" ? "<stdin>" : "<argument>").value
            } catch {
                Stderr.write(DiagnosticRenderer().render(error.diagnostics) + "\n")
                throw ExitCode(2)
            }
            do { try SharedCommand.open(container).write(collection, value) } catch let e as ExitCode { throw e } catch {
                throw SharedCommand.fail(error)
            }
        }
    }

    struct Increment: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "increment", abstract: "Add 1 to an integer member of a collection, atomically across processes.")
        @Argument(help: "The container directory.") var container: String
        @Argument(help: "The collection (an object).") var collection: String
        @Option(help: "The member to increment.") var key = "count"
        @Option(parsing: .unconditional, help: "How many increments, each its own locked update (1 to 1000000).") var times = 1

        func validate() throws {
            guard (1...1_000_000).contains(times) else {
                throw ValidationError("--times must be from 1 to 1000000, not \(times)")
            }
        }

        func run() throws {
            do {
                let c = try SharedCommand.open(container)
                for _ in 0..<times {
                    try c.update(collection) { old in try Self.incremented(old, key: key) }
                }
            } catch let e as ExitCode { throw e } catch { throw SharedCommand.fail(error) }
        }

        /// The collection with `key` one higher; what is not an integer below `Int64.max` is refused, never
        /// replaced.
        static func incremented(_ old: Value?, key: String) throws(IncrementError) -> Value {
            guard var o = old.map({ $0.objectValue }) ?? [:] else {
                throw IncrementError(message: "the collection holds \(Self.brief(old ?? .null)), not an object")
            }
            let current: Int64
            switch o[key] {
            case nil: current = 0
            case .int(let n)?: current = n
            case let v?:
                throw IncrementError(message: "member '\(key)' holds \(Self.brief(v)), not an integer")
            }
            let (next, overflow) = current.addingReportingOverflow(1)
            if overflow { throw IncrementError(message: "member '\(key)' is \(current); one more would overflow") }
            o[key] = .int(next)
            return .object(o)
        }

        /// `a string ("x")`: the kind of a value and a short excerpt of it.
        static func brief(_ v: Value) -> String {
            let text = JSONWriter.string(v)
            return "\(v.kind.rawValue) \(text.count > 40 ? String(text.prefix(37)) + "..." : text)"
        }
    }

    /// Why an increment was refused (exit 1: the container holds something else).
    struct IncrementError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the collections of a container.")
        @Argument(help: "The container directory.") var container: String
        func run() throws {
            for name in try SharedCommand.open(container, create: false).collections() { Stdout.print(name) }
        }
    }
}
