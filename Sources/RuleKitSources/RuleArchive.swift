// A zip of rules, read as Launch publishes it and as a folder would be: with every bound applied while it
// is read (entries, bytes per entry and in total, counted as they come out of the decompressor, not as the
// archive declares them), and the whole archive refused for an entry that names a place outside it.
internal import Foundation
public import RuleKitCore
internal import ZIPFoundation

extension DiagnosticCode {
    /// A rules archive that cannot be read, or that breaks one of `RuleArchive.Limits`.
    public static let archiveInvalid: DiagnosticCode = "input.archive-invalid"
}

/// The files of a rules zip, read whole and bounded.
///
/// A Launch `rules.zip` holds its rules JSON as the entry `rules.json` at the root, else as its first file
/// entry (launch-rules-reference §12.1); a zip of RuleKit rules files is read as their folder would be.
/// Diagnostics name an entry `ARCHIVE!ENTRY` (`rules.zip!rules.json:12:5`).
public struct RuleArchive: Sendable {
    /// How much one archive may hold. A zip's header says what it holds, but a hostile one lies: every
    /// bound is applied to the bytes as they are inflated.
    public struct Limits: Sendable, Hashable {
        /// The archive's own size.
        public var maxArchiveBytes: Int
        /// Entries of any kind.
        public var maxEntries: Int
        /// Inflated bytes of all entries together.
        public var maxTotalBytes: Int
        /// Characters in an entry's path.
        public var maxPathLength: Int

        /// 64 MiB of archive, 10,000 entries, 256 MiB inflated, paths of 1,024 characters.
        public static let `default` = Limits(
            maxArchiveBytes: 64 << 20, maxEntries: 10_000, maxTotalBytes: 256 << 20, maxPathLength: 1024)

        /// Bounds as given.
        ///
        /// - Parameters:
        ///   - maxArchiveBytes: the archive's own size.
        ///   - maxEntries: entries of any kind.
        ///   - maxTotalBytes: inflated bytes of all entries.
        ///   - maxPathLength: characters in an entry's path.
        public init(maxArchiveBytes: Int, maxEntries: Int, maxTotalBytes: Int, maxPathLength: Int) {
            self.maxArchiveBytes = maxArchiveBytes
            self.maxEntries = maxEntries
            self.maxTotalBytes = maxTotalBytes
            self.maxPathLength = maxPathLength
        }
    }

    /// One file of the archive.
    public struct Entry: Sendable, Hashable {
        /// Its path inside the archive (`/`-separated, never absolute, never with `..`).
        public var path: String
        /// Its bytes, inflated.
        public var bytes: [UInt8]
    }

    /// The archive's name in messages (a path or a URL).
    public let name: String
    /// Its file entries, in archive order (folders are not listed).
    public let entries: [Entry]

    /// Whether `path` names a zip archive by its extension.
    public static func isArchive(_ path: String) -> Bool { path.lowercased().hasSuffix(".zip") }

    /// Reads the archive at `path`.
    ///
    /// - Parameters:
    ///   - path: the archive's file.
    ///   - limits: the bounds.
    /// - Returns: the archive's files.
    /// - Throws: the file's read error, or `input.archive-invalid` for an archive that is not a zip, breaks a
    ///   bound, or holds an entry that is a link or names a path outside it.
    public static func read(path: String, limits: Limits = .default) throws(DiagnosticError) -> RuleArchive {
        let bytes = try ByteInput.readAll(path, limit: limits.maxArchiveBytes)
        return try read(bytes, name: path, limits: limits)
    }

    /// Reads an archive's bytes.
    ///
    /// - Parameters:
    ///   - bytes: the zip.
    ///   - name: its name in messages.
    ///   - limits: the bounds.
    /// - Returns: the archive's files.
    /// - Throws: `input.archive-invalid` as `read(path:limits:)`.
    public static func read(_ bytes: [UInt8], name: String, limits: Limits = .default) throws(DiagnosticError) -> RuleArchive {
        func refuse(_ why: String) -> DiagnosticError {
            DiagnosticError(.error(.archiveInvalid, "rules archive '\(name)' refused: \(why)"))
        }
        guard bytes.count <= limits.maxArchiveBytes else {
            throw refuse("it is larger than the limit of \(limits.maxArchiveBytes) bytes")
        }
        let archive: Archive
        do { archive = try Archive(data: Data(bytes), accessMode: .read) } catch {
            throw refuse("it is not a zip archive")
        }
        // What the headers declare is checked first (an honest bomb is refused before any inflating); what the
        // entries really inflate to is counted below (a lying one is refused as its bytes come).
        var declared: UInt64 = 0
        var listed = 0
        for entry in archive {
            listed += 1
            guard listed <= limits.maxEntries else { throw refuse("it holds more than \(limits.maxEntries) entries") }
            declared = declared &+ min(entry.uncompressedSize, UInt64(Int.max))
            guard declared <= UInt64(limits.maxTotalBytes) else {
                throw refuse("its entries inflate to more than the limit of \(limits.maxTotalBytes) bytes")
            }
        }
        var entries: [Entry] = []
        var count = 0
        var total = 0
        for entry in archive {
            count += 1
            guard count <= limits.maxEntries else { throw refuse("it holds more than \(limits.maxEntries) entries") }
            let path = entry.path
            if let why = unsafePath(path, limits: limits) { throw refuse("entry '\(String(path.prefix(200)))' \(why)") }
            switch entry.type {
            case .symlink: throw refuse("entry '\(path)' is a link")
            case .directory: continue
            case .file: break
            }
            var out: [UInt8] = []
            do {
                _ = try archive.extract(entry, skipCRC32: false) { chunk in
                    total += chunk.count
                    guard total <= limits.maxTotalBytes else { throw ArchiveBound.exceeded }
                    out.append(contentsOf: chunk)
                }
            } catch ArchiveBound.exceeded {
                throw refuse("its entries inflate to more than the limit of \(limits.maxTotalBytes) bytes")
            } catch {
                throw refuse("entry '\(path)' cannot be read (\(error))")
            }
            entries.append(Entry(path: path, bytes: out))
        }
        return RuleArchive(name: name, entries: entries)
    }

    private enum ArchiveBound: Error { case exceeded }

    /// A Launch `rules.zip`: `rulesJSON` as its one entry, `rules.json` at the root, deflated.
    ///
    /// - Parameter rulesJSON: the Launch rules JSON.
    /// - Returns: the zip's bytes.
    /// - Throws: `input.archive-invalid` when the archive cannot be made.
    public static func launchZip(rulesJSON: [UInt8]) throws(DiagnosticError) -> [UInt8] {
        do {
            let archive = try Archive(data: Data(), accessMode: .create)
            try archive.addEntry(
                with: "rules.json", type: .file, uncompressedSize: Int64(rulesJSON.count), modificationDate: Date(),
                compressionMethod: .deflate
            ) { position, size in
                let start = Int(position)
                return Data(rulesJSON[start..<min(rulesJSON.count, start + size)])
            }
            guard let data = archive.data else { throw ArchiveBound.exceeded }
            return [UInt8](data)
        } catch {
            throw DiagnosticError(.error(.archiveInvalid, "cannot make a rules archive: \(error)"))
        }
    }

    /// Why an entry's path is refused, or nil: absolute, a drive or a `..` step, a backslash (a Windows
    /// separator that unzip tools read as one), or too long.
    static func unsafePath(_ path: String, limits: Limits) -> String? {
        if path.count > limits.maxPathLength { return "has a path longer than \(limits.maxPathLength) characters" }
        if path.isEmpty { return "has an empty path" }
        if path.hasPrefix("/") { return "has an absolute path" }
        if path.contains("\\") { return "has a backslash in its path" }
        if path.utf8.contains(0) { return "has a NUL in its path" }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains("..") { return "has a '..' step in its path" }
        if let first = parts.first, first.count == 2, first.hasSuffix(":") { return "has a drive in its path" }
        return nil
    }

    /// The entries to load as rules, named for messages.
    ///
    /// The entry `rules.json` at the root, when there is one (a Launch publish); else the rules files
    /// (`*.yaml`, `*.yml`, `*.json`, not rule tests) of the archive's root folder — or of its one top folder,
    /// when everything is inside one, as zip tools make it —, in name order; else the first file entry, as the
    /// reference reads a zip whose rules file has another name.
    public var rulesEntries: [Entry] {
        let files = entries.filter { !$0.path.hasSuffix("/") && !Self.isHidden($0.path) }
        if let launch = files.first(where: { $0.path == "rules.json" }) { return [launch] }
        let folder = Self.topFolder(files.map(\.path))
        let inFolder = files.filter { e in
            guard e.path.hasPrefix(folder) else { return false }
            let rest = e.path.dropFirst(folder.count)
            return !rest.contains("/") && RuleSources.isRulesFile(String(rest))
        }
        if !inFolder.isEmpty { return inFolder.sorted { $0.path < $1.path } }
        return files.first.map { [$0] } ?? []
    }

    /// The rule test files of the archive's rules folder (as `rulesEntries` finds it), in name order.
    public var testEntries: [Entry] {
        let files = entries.filter { !Self.isHidden($0.path) }
        let folder = Self.topFolder(files.map(\.path))
        return files.filter { e in
            guard e.path.hasPrefix(folder) else { return false }
            let rest = e.path.dropFirst(folder.count)
            return !rest.contains("/") && RuleSources.isTestFile(String(rest))
        }.sorted { $0.path < $1.path }
    }

    /// The rules a rule test entry runs against, as `RuleProject.rules(forTest:named:)` pairs them on disk:
    /// the entries it names (relative to its folder), else `NAME.yaml` (`.yml`, `.json`) beside
    /// `NAME.test.yaml`, else its folder's rules entries.
    ///
    /// - Parameters:
    ///   - test: the test entry.
    ///   - named: the rules files the test names, if it names any.
    /// - Returns: the entries, and the names asked for that the archive does not hold.
    public func rules(forTest test: Entry, named: [String]?) -> (entries: [Entry], missing: [String]) {
        let folder = test.path.lastIndex(of: "/").map { String(test.path[...$0]) } ?? ""
        let byPath = Dictionary(entries.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        if let named {
            let paths = named.map { folder + $0 }
            return (paths.compactMap { byPath[$0] }, paths.filter { byPath[$0] == nil })
        }
        let name = String(test.path.dropFirst(folder.count))
        if let stem = RuleSources.stem(name), stem.hasSuffix(".test") {
            for ext in RuleSources.extensions {
                if let e = byPath[folder + stem.dropLast(".test".count) + ext] { return ([e], []) }
            }
        }
        let inFolder = entries.filter { e in
            e.path.hasPrefix(folder) && !e.path.dropFirst(folder.count).contains("/")
                && RuleSources.isRulesFile(String(e.path.dropFirst(folder.count)))
        }
        return (inFolder.sorted { $0.path < $1.path }, [])
    }

    /// `entries` read, planned and checked as one snapshot, each named `ARCHIVE!ENTRY`.
    ///
    /// - Parameter entries: entries of this archive.
    /// - Returns: the snapshot.
    public func snapshot(_ entries: [Entry]) -> RuleSnapshot {
        var files = RuleFiles()
        for e in entries {
            let yaml = e.path.hasSuffix(".yaml") || e.path.hasSuffix(".yml")
            files.add(e.bytes, file: name(of: e), json: !yaml)
        }
        return RuleSnapshot(sources: [name], files: files)
    }

    /// `ARCHIVE!ENTRY`: how messages name an entry.
    public func name(of entry: Entry) -> String { name + "!" + entry.path }

    /// The one folder every path is inside (`"top/"`), or `""` when they are not all in one.
    static func topFolder(_ paths: [String]) -> String {
        guard let first = paths.first, let slash = first.firstIndex(of: "/") else { return "" }
        let top = String(first[...slash])
        return paths.allSatisfy { $0.hasPrefix(top) } ? top : ""
    }

    /// macOS's `__MACOSX/` resource forks and dot files are never rules.
    static func isHidden(_ path: String) -> Bool {
        path.hasPrefix("__MACOSX/") || path.split(separator: "/").contains { $0.hasPrefix(".") }
    }
}
