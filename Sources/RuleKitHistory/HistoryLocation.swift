// Where history is kept, and the one place a location becomes a store: adding a store is its file and a
// case here.
public import Foundation
public import RuleKitCore
public import ServiceLifecycle

/// Where event history is kept.
public enum HistoryLocation: Sendable, Equatable {
    /// In memory, lost at exit (tests).
    case memory
    /// A SQLite file (one node).
    case sqlite(String)
    /// A PostgreSQL database shared by a fleet: `postgres://user:password@host:port/database`.
    case postgres(URL)

    /// Parses `sqlite:FILE`, `postgres://…` or `memory`.
    ///
    /// - Parameter text: the location as a person writes it.
    public init?(_ text: String) {
        if text == "memory" {
            self = .memory
        } else if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst(7))
            guard !path.isEmpty else { return nil }
            self = .sqlite(path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"), let url = URL(string: text), url.host != nil {
            self = .postgres(url)
        } else {
            return nil
        }
    }
}

extension HistoryLocation {
    /// A store opened from its location, with what a host needs of it.
    public struct Opened: Sendable {
        /// The store, read and written a block at a time (`BlockHistory`).
        public let backend: any HistoryBackend
        /// The same store when it is kept in this process and needs no block reads or writes (memory): the
        /// hubs record into it and ask it directly.
        public let direct: InMemoryEventHistory?
        /// The store's client, which must run from before the first read until after the last write (a
        /// database's connection pool); nil when it has none. A host runs it as its first service.
        public let client: (any Service)?
    }

    /// Opens the store: a SQLite file is opened (and locked) here, a database's client made (it connects
    /// when `client` runs).
    ///
    /// - Throws: a `DiagnosticError` naming the location when it cannot be used.
    public func open() throws(DiagnosticError) -> Opened {
        switch self {
        case .memory:
            let store = InMemoryEventHistory(keyed: true)
            return Opened(backend: store, direct: store, client: nil)
        case .sqlite(let path):
            let url = URL(fileURLWithPath: path)
            switch SQLiteEventHistory.open(directory: url.deletingLastPathComponent().path, file: url.lastPathComponent) {
            case .success(let store): return Opened(backend: store, direct: nil, client: nil)
            case .failure(let e): throw e
            }
        case .postgres(let url):
            let store = try PostgresEventHistory(url: url)
            return Opened(backend: store, direct: nil, client: store)
        }
    }

    /// Where the spool of records waiting for the store lives when none is named: beside a SQLite file, in
    /// the current folder for a database, nowhere for memory.
    public var defaultSpoolFile: String? {
        switch self {
        case .memory: return nil
        case .sqlite(let path): return path + ".spool"
        case .postgres: return "rulekit-history.spool"
        }
    }
}
