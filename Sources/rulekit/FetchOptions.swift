import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitFetch
import RuleKitSources

/// How a command reaches rules given as URLs: the publisher's CA and credentials, plain http, the cache.
struct FetchOptions: ParsableArguments {
    @Flag(name: .customLong("no-cache"), help: "Fetch rules URLs without reading or writing the rules cache.")
    var noCache = false

    @Option(name: .customLong("rules-ca"), help: "A PEM file of the CA certificates a rules URL's publisher is trusted by.")
    var rulesCA: String?

    @Option(
        name: .customLong("rules-header-file"),
        help: "A file of 'Name: value' lines sent to a rules URL's host (credentials; never printed).")
    var rulesHeaderFile: String?

    @Flag(name: .customLong("rules-allow-http"), help: "Allow rules URLs over plain http to hosts other than loopback.")
    var rulesAllowHTTP = false

    /// The publisher's options: headers read from their file (exit 2 when it cannot be read).
    func remoteOptions() throws -> RemoteRules.Options {
        var o = RemoteRules.Options()
        o.allowHTTP = rulesAllowHTTP
        if let rulesHeaderFile {
            do { o.headers = try HeaderFile.read(rulesHeaderFile) } catch {
                Stderr.write("error: \(Self.message(error))\n")
                throw ExitCode(2)
            }
        }
        return o
    }

    /// The cache one-shot commands use: the user's, unless `--no-cache`.
    var cache: RulesCache? {
        guard !noCache, let dir = RulesCache.userDirectory() else { return nil }
        return RulesCache(directory: dir)
    }

    /// The body of every rules URL among `sources`: fetched with a conditional GET from the cache's
    /// validators; the cached body when the publisher says it has not changed, or, with a warning giving its
    /// age, when it cannot be reached. Exit 2 for a URL with neither.
    func fetch(_ sources: [String]) throws -> FetchedSources {
        let urls = sources.filter(RemoteRules.isURL)
        guard !urls.isEmpty else { return FetchedSources() }
        let options = try remoteOptions()
        let transport: HTTPRulesTransport
        do { transport = try HTTPRulesTransport(caFile: rulesCA) } catch {
            Stderr.write("error: \(Self.message(error))\n")
            throw ExitCode(2)
        }
        let remote = RemoteRules(transport: transport, options: options)
        let cache = self.cache
        let outcome = try BlockingTask.run {
            var out = FetchedSources()
            var failures: [String] = []
            for url in urls {
                let cached = cache?.load(url)
                do {
                    switch try await remote.fetch(url, etag: cached?.etag, lastModified: cached?.lastModified) {
                    case .fetched(let entry):
                        out.bodies[url] = entry.body
                        out.fresh.append(entry)
                    case .notModified:
                        if var cached {
                            cached.fetchedAt = Date().timeIntervalSince1970
                            out.bodies[url] = cached.body
                            out.fresh.append(cached)
                        } else {
                            failures.append("error: '\(RemoteRules.redacted(url))' answered 304 to a request that asked for no version")
                        }
                    }
                } catch {
                    if let cached {
                        out.bodies[url] = cached.body
                        let age = Date().timeIntervalSince1970 - cached.fetchedAt
                        Stderr.write(
                            "warning: \(Self.message(error)); using the rules cached \(Self.age(age)) ago\n")
                    } else {
                        failures.append("error: \(Self.message(error))")
                    }
                }
            }
            try? await transport.shutdown()
            return (out, failures)
        }
        if !outcome.1.isEmpty {
            for f in outcome.1 { Stderr.write(f + "\n") }
            throw ExitCode(2)
        }
        var fetched = outcome.0
        fetched.cache = cache
        return fetched
    }

    /// An error's message: a diagnostic's text, else the error's own.
    static func message(_ error: any Error) -> String {
        if let d = error as? DiagnosticError { return d.diagnostics.first?.message ?? "\(d)" }
        return "\(error)"
    }

    /// A duration as a person reads it: `42s`, `5m`, `3h 2m`, `4d 1h`.
    static func age(_ seconds: Double) -> String {
        let s = Int(max(0, seconds.isFinite ? min(seconds, 1e12) : 0))
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" }
        if s < 86_400 { return "\(s / 3600)h \(s % 3600 / 60)m" }
        return "\(s / 86_400)d \(s % 86_400 / 3600)h"
    }
}

/// What `FetchOptions.fetch` found: the bodies to load, and the entries to cache once they load.
struct FetchedSources {
    var bodies: [String: [UInt8]] = [:]
    var fresh: [RulesCache.Entry] = []
    var cache: RulesCache?

    /// Caches the fetched versions when `snapshot` loaded them (the cache holds only rules that load).
    func commit(_ snapshot: RuleSnapshot) {
        guard let cache, !snapshot.hasErrors else { return }
        for entry in fresh {
            do { try cache.store(entry) } catch {
                Stderr.write("warning: \(FetchOptions.message(error)) (the rules ran; they were not cached)\n")
            }
        }
    }
}
