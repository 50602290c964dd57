// RuleKitSources is where rules come from: which files under a folder are rules and which are rule tests
// (one filter, here and nowhere else), and `RuleSnapshot`, the one load every consumer shares — the
// rules read and planned once, their findings, and the stamps and content hash of the files as read.
// `rulekit run`, `match`, `lint`, `test`, `report`, `serve` and serve's reload all load through it, so that
// a service's workers run the very snapshot its reload checked, not what the disk holds a moment later.
internal import Foundation
internal import RuleKitCore

/// Which files are rules and which are rule tests.
///
/// A folder's rules files are its `*.yaml`, `*.yml` and `*.json` files that are not rule tests; its rule
/// tests are the `*.test.yaml`, `*.test.yml` and `*.test.json` files. Names that open with `.` (editor
/// swap and back-up files, `._` resource forks) are neither. Folders are not descended into.
public enum RuleSources {
    /// The extensions rules and rule tests are written in.
    static let extensions = [".yaml", ".yml", ".json"]

    /// The name without its rules extension, or nil when it has none (or is hidden).
    static func stem(_ name: String) -> Substring? {
        guard !name.hasPrefix(".") else { return nil }
        for e in extensions where name.hasSuffix(e) && name.count > e.count { return name.dropLast(e.count) }
        return nil
    }

    /// Whether a file of a folder named `name` holds rules.
    public static func isRulesFile(_ name: String) -> Bool {
        guard let s = stem(name) else { return false }
        return !s.hasSuffix(".test")
    }

    /// Whether a file of a folder named `name` holds rule tests.
    public static func isTestFile(_ name: String) -> Bool {
        stem(name)?.hasSuffix(".test") ?? false
    }

    /// The rules files `path` names: a folder's rules files in name order, or the file itself (whatever its
    /// name: a file given by name is read as asked). `-` is standard input. Nil when nothing is at `path`.
    public static func rulesFiles(_ path: String) -> [String]? {
        files(path, where: isRulesFile)
    }

    /// The rule test files `path` names: a folder's test files in name order, or the file itself. Nil when
    /// nothing is at `path`.
    public static func testFiles(_ path: String) -> [String]? {
        files(path, where: isTestFile)
    }

    /// The rule tests that go with rules at `path`: a folder's test files, or the file's `NAME.test.yaml`
    /// (or `.yml`, `.json`) beside it. Standard input and paths that do not exist have none.
    public static func testFiles(besides path: String) -> [String] {
        guard path != "-", let kind = kind(path) else { return [] }
        if kind == .folder { return testFiles(path) ?? [] }
        let name = PathText.lastComponent(of: path)
        let base = PathText.join(PathText.directory(of: path), String(stem(name) ?? Substring(name)))
        return extensions.map { base + ".test" + $0 }.filter { self.kind($0) == .file }
    }

    /// Every rules file under `paths` with its stamp now, for noticing a change (`RuleSnapshot.stamps`
    /// holds the same taken at load). A path that cannot be read has no entry: its appearing is a change.
    public static func stamps(_ paths: [String]) -> [String: FileStamp] {
        var out: [String: FileStamp] = [:]
        for p in paths where p != "-" && !RemoteRules.isURL(p) {
            for f in rulesFiles(p) ?? [] { out[f] = FileStamp(path: f) }
        }
        return out
    }

    enum Kind { case file, folder }

    static func kind(_ path: String) -> Kind? {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { return nil }
        return isDir.boolValue ? .folder : .file
    }

    static func files(_ path: String, where keep: (String) -> Bool) -> [String]? {
        if path == "-" { return [path] }
        guard let kind = kind(path) else { return nil }
        guard kind == .folder else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter(keep).sorted().map { PathText.join(path, $0) }
    }
}

/// What a file was when looked at: a change of any part is a change of the file. Size and modification
/// time alone miss a file replaced by another of the same size within the clock's resolution; the inode
/// catches a replacement by rename, which is how editors and deploy tools write.
public struct FileStamp: Sendable, Hashable {
    /// Modification time, in nanoseconds since 1970.
    public var modified: Int64
    /// Size in bytes.
    public var size: Int64
    /// The file's inode number.
    public var inode: UInt64

    /// The stamp of the file at `path` now; a file that cannot be looked at has the zero stamp.
    public init(path: String) {
        let attrs = (try? FileManager.default.attributesOfItem(atPath: path)) ?? [:]
        let date = attrs[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0)
        modified = Int64(exactly: (date.timeIntervalSince1970 * 1e9).rounded()) ?? 0
        size = (attrs[.size] as? NSNumber)?.int64Value ?? 0
        inode = (attrs[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }
}
