// The cache of rules fetched from URLs: one file per URL, the publisher's validators and the body in one
// file written whole (`AtomicFile`), so a crash mid-write leaves the previous version as it was. It is the
// last-good store of URL sources: a body is stored only once it loaded, and served when the network is not.
internal import Foundation
public import RuleKitCore

/// A folder of fetched rules, keyed by URL, bounded in size.
public struct RulesCache: Sendable {
    /// One URL's cached rules.
    public struct Entry: Sendable, Hashable {
        /// The URL asked for (before redirects).
        public var url: String
        /// The publisher's `ETag`, when it sent one.
        public var etag: String?
        /// The publisher's `Last-Modified`, when it sent one.
        public var lastModified: String?
        /// When the body was fetched or last confirmed unchanged (a 304), in seconds since 1970.
        public var fetchedAt: Double
        /// The body as published: a zip or a rules file.
        public var body: [UInt8]

        /// An entry as given.
        ///
        /// - Parameters:
        ///   - url: the URL asked for.
        ///   - etag: the publisher's ETag.
        ///   - lastModified: the publisher's Last-Modified.
        ///   - fetchedAt: when fetched or confirmed, in seconds since 1970.
        ///   - body: the body.
        public init(url: String, etag: String?, lastModified: String?, fetchedAt: Double, body: [UInt8]) {
            self.url = url
            self.etag = etag
            self.lastModified = lastModified
            self.fetchedAt = fetchedAt
            self.body = body
        }
    }

    private struct Header: Codable {
        var url: String
        var etag: String?
        var lastModified: String?
        var fetchedAt: Double
        var size: Int
    }

    /// The cache's folder (made when first written).
    public let directory: String
    /// The most bytes its files may take together: the oldest other URLs' files are removed past it.
    public let maxBytes: Int

    /// A cache in `directory`.
    ///
    /// - Parameters:
    ///   - directory: the folder.
    ///   - maxBytes: the bound of its files together (256 MiB by default).
    public init(directory: String, maxBytes: Int = 256 << 20) {
        self.directory = directory
        self.maxBytes = maxBytes
    }

    /// The user's cache folder for rules: `$XDG_CACHE_HOME/rulekit/rules`, else `~/.cache/rulekit/rules`.
    ///
    /// - Parameter given: the environment to read (nil: this process's).
    /// - Returns: the folder, or nil when neither variable names one.
    public static func userDirectory(environment given: [String: String]? = nil) -> String? {
        let environment = given ?? ProcessInfo.processInfo.environment
        if let x = environment["XDG_CACHE_HOME"], x.hasPrefix("/") { return PathText.join(PathText.join(x, "rulekit"), "rules") }
        if let h = environment["HOME"], !h.isEmpty { return PathText.join(h, ".cache/rulekit/rules") }
        return nil
    }

    /// The file holding `url`'s entry: a hash of the URL, so no URL text reaches a file name.
    public func file(for url: String) -> String {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in url.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return PathText.join(directory, String(h, radix: 16) + ".rules")
    }

    /// `url`'s entry, or nil when there is none or it cannot be read whole (a torn or foreign file is no entry).
    public func load(_ url: String) -> Entry? {
        guard let bytes = try? ByteInput.readAll(file(for: url), limit: RuleArchive.Limits.default.maxArchiveBytes + 65_536),
            let newline = bytes.firstIndex(of: 0x0A),
            let header = try? JSONDecoder().decode(Header.self, from: Data(bytes[..<newline])),
            header.url == url, header.size == bytes.count - newline - 1
        else { return nil }
        return Entry(
            url: url, etag: header.etag, lastModified: header.lastModified, fetchedAt: header.fetchedAt,
            body: Array(bytes[(newline + 1)...]))
    }

    /// Stores `entry` in place of the URL's previous one, in one step, then trims the cache to its bound.
    ///
    /// - Parameter entry: what to store.
    /// - Throws: `input.unreadable` naming the file when the folder cannot be made or the file written.
    public func store(_ entry: Entry) throws(DiagnosticError) {
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw DiagnosticError(.error(.unreadable, "cannot make the rules cache folder '\(directory)': \(error.localizedDescription)"))
        }
        let header = Header(
            url: entry.url, etag: entry.etag, lastModified: entry.lastModified, fetchedAt: entry.fetchedAt, size: entry.body.count)
        let encoded = (try? JSONEncoder().encode(header)).map { [UInt8]($0) } ?? []
        let target = file(for: entry.url)
        try AtomicFile.write(encoded + [0x0A] + entry.body, to: target, mode: 0o600)
        trim(keeping: target)
    }

    /// The URL whose rules were loaded last (a host's next start loads its cached rules first), or nil.
    public func lastURL() -> String? {
        guard let bytes = try? ByteInput.readAll(PathText.join(directory, "last-url"), limit: 65_536) else { return nil }
        let url = String(decoding: bytes, as: UTF8.self)
        return RemoteRules.isURL(url) ? url : nil
    }

    /// Records `url` as the one whose rules were loaded last.
    ///
    /// - Parameter url: the rules URL.
    /// - Throws: `input.unreadable` naming the file when it cannot be written.
    public func setLastURL(_ url: String) throws(DiagnosticError) {
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw DiagnosticError(.error(.unreadable, "cannot make the rules cache folder '\(directory)': \(error.localizedDescription)"))
        }
        try AtomicFile.write(Array(url.utf8), to: PathText.join(directory, "last-url"), mode: 0o600)
    }

    /// Removes the least recently written entries but `keeping` while the cache is past its bound, and the
    /// temporary files of writes killed midway (an hour old: another process's write in progress stays).
    func trim(keeping: String) {
        let fm = FileManager.default
        let names = (try? fm.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(".") && name.hasSuffix(".tmp") {
            let path = PathText.join(directory, name)
            let modified = (try? fm.attributesOfItem(atPath: path))?[.modificationDate] as? Date ?? .distantFuture
            if modified.timeIntervalSinceNow < -3600 { try? fm.removeItem(atPath: path) }
        }
        var files: [(path: String, size: Int, modified: Date)] = names.filter { $0.hasSuffix(".rules") }.map { name in
            let path = PathText.join(directory, name)
            let attrs = (try? fm.attributesOfItem(atPath: path)) ?? [:]
            return (path, (attrs[.size] as? NSNumber)?.intValue ?? 0, attrs[.modificationDate] as? Date ?? .distantPast)
        }
        var total = files.reduce(0) { $0 + $1.size }
        files.sort { $0.modified < $1.modified }
        for f in files where total > maxBytes && f.path != keeping {
            try? fm.removeItem(atPath: f.path)
            total -= f.size
        }
    }
}
