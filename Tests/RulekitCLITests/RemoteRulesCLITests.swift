import Foundation
import RuleKitCore
import RuleKitFetch
import RuleKitSources
import RuleKitTestSupport
import Testing

/// Rules as Launch publishes them: `rulekit pack`, a rules.zip read by every command, hostile archives
/// refused whole, and rules URLs fetched from a real publisher (`Fixtures/rules_publisher.py`) with
/// conditional GETs, a cache that serves offline, redirects bounded and credentials kept out of messages.
@Suite(.serialized) struct RemoteRulesCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let events = SharedCorpus.repositoryRoot.appendingPathComponent("Examples/events.jsonl").path
    static let rules = SharedCorpus.repositoryRoot.appendingPathComponent("Rules").path

    /// A fresh folder.
    func folder() throws -> URL {
        let dir = Scratch.url("rk-remote-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A zip made by Python's zipfile: entries of text (repeated `times`), or links (`link: true`), deflated.
    func zip(_ path: URL, _ entries: [(name: String, text: String, link: Bool)], times: Int = 1) throws {
        let spec = entries.map { ["name": $0.name, "text": $0.text, "link": $0.link, "times": times] as [String: Any] }
        let specFile = path.appendingPathExtension("json")
        try JSONSerialization.data(withJSONObject: spec).write(to: specFile)
        defer { try? FileManager.default.removeItem(at: specFile) }
        let script = """
            import json, sys, zipfile
            z = zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED)
            for e in json.load(open(sys.argv[2])):
                i = zipfile.ZipInfo(e["name"])
                i.compress_type = zipfile.ZIP_DEFLATED
                if e["link"]:
                    i.external_attr = 0o120777 << 16
                z.writestr(i, e["text"] * e["times"])
            z.close()
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, path.path, specFile.path]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
    }

    static let launchBroken =
        #"{"version":1,"rules":[{"condition":{"type":"matcher","definition":{"key":"a","matcher":"zz","values":[1]}},"consequences":[]}]}"#

    /// The output lines of a run without their event ids and parents' (fresh per run).
    static func withoutIDs(_ text: String) -> [String] {
        text.split(separator: "\n").map { line in
            String(line).replacingOccurrences(of: #""(id|parentID)":"[0-9A-F-]{36}""#, with: #""$1":"-""#, options: .regularExpression)
        }
    }

    @Test func packedRulesRunAsTheirFolderAndLintNamesTheEntry() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let packed = dir.appendingPathComponent("rules.zip").path
        let pack = try CLIRunner.run(["pack", Self.rules, "--out", packed])
        #expect(pack.status == 0, "\(pack.transcript)")
        let fromZip = try CLIRunner.run(["run", "--rules", packed, Self.events])
        let fromFolder = try CLIRunner.run(["run", "--rules", Self.rules, Self.events])
        #expect(fromZip.status == 0, "\(fromZip.transcript)")
        #expect(Self.withoutIDs(fromZip.stdout) == Self.withoutIDs(fromFolder.stdout))
        #expect(try CLIRunner.run(["lint", packed]).status == 0)

        // A zip of a rules folder (one top folder, as zip tools make it) reads as the folder.
        let folderZip = dir.appendingPathComponent("folder.zip")
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.rules).sorted()
        try zip(folderZip, try files.map { ("Rules/" + $0, try String(contentsOfFile: Self.rules + "/" + $0, encoding: .utf8), false) })
        let fromFolderZip = try CLIRunner.run(["match", "--rules", folderZip.path, Self.events])
        let matched = try CLIRunner.run(["match", "--rules", Self.rules, Self.events])
        #expect(fromFolderZip.status == 0, "\(fromFolderZip.transcript)")
        #expect(fromFolderZip.stdout == matched.stdout)
        // Its rule tests run from the zip, paired with their rules as on disk.
        let zipTests = try CLIRunner.run(["test", folderZip.path])
        let folderTests = try CLIRunner.run(["test", Self.rules])
        #expect(zipTests.status == 0, "\(zipTests.transcript)")
        #expect(zipTests.stdout.split(separator: "\n").last == folderTests.stdout.split(separator: "\n").last)
        #expect(zipTests.stdout.contains("PASS \(folderZip.path)!Rules/commerce.test.yaml"), "\(zipTests.stdout)")
        #expect(try CLIRunner.run(["test", packed]).status == 2, "a zip without tests is a usage error")

        let broken = dir.appendingPathComponent("broken.zip")
        try zip(broken, [("rules.json", Self.launchBroken, false)])
        let lint = try CLIRunner.run(["lint", broken.path])
        #expect(lint.status == 1)
        #expect(lint.stdout.contains("broken.zip!rules.json:1:36: error: rule #0: unknown matcher 'zz'"), "\(lint.transcript)")
    }

    @Test func hostileArchivesAreRefusedWhole() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = #"{"version":1,"rules":[]}"#
        let cases: [(String, [(name: String, text: String, link: Bool)], String)] = [
            ("dotdot", [("rules.json", good, false), ("../evil.json", good, false)], "'..' step"),
            ("absolute", [("/etc/rules.json", good, false)], "absolute path"),
            ("link", [("rules.json", "/etc/passwd", true)], "is a link"),
            ("backslash", [("..\\rules.json", good, false)], "backslash"),
            ("bomb", [("rules.json", String(repeating: " ", count: 1 << 20), false)], "inflate to more than"),
            ("many", (0..<10_001).map { ("f\($0).json", "", false) }, "more than 10000 entries"),
        ]
        for (name, entries, why) in cases {
            let path = dir.appendingPathComponent(name + ".zip")
            try zip(path, entries, times: name == "bomb" ? 257 : 1)
            // Every command reads archives through one reader: lint for each case, run for the first.
            let commands = name == "dotdot" ? [["lint", path.path], ["run", "--rules", path.path, Self.events]] : [["lint", path.path]]
            for args in commands {
                let r = try CLIRunner.run(args)
                #expect(r.status != 0 && r.status < 128, "\(name): \(r.transcript)")
                #expect((r.stdout + r.stderr).contains(why), "\(name): \(r.transcript)")
            }
        }
        let notZip = dir.appendingPathComponent("not.zip")
        try "hello".write(to: notZip, atomically: true, encoding: .utf8)
        #expect(try CLIRunner.run(["lint", notZip.path]).stdout.contains("not a zip archive"))
    }

    /// A publisher serving `root`, stopped at the end of `body`.
    func withPublisher<T>(_ root: URL, _ body: (Int) throws -> T) throws -> T {
        let server = try LocalServer(script: Self.fixtures.appendingPathComponent("rules_publisher.py"), arguments: ["--root", root.path])
        defer { server.stop() }
        return try body(server.port)
    }

    /// The requests the publisher saw.
    func log(_ port: Int) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(string: "http://127.0.0.1:\(port)/_log")!)
        return (try JSONSerialization.jsonObject(with: data) as? [[String: Any]]) ?? []
    }

    @Test func aRulesURLIsFetchedConditionallyCachedAndUsedOffline() throws {
        guard LocalServer.isAvailable else {
            print("skipping: python3 (the rules publisher) is not available")
            return
        }
        let root = try folder()
        let cache = try folder()
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: cache)
        }
        #expect(try CLIRunner.run(["pack", Self.rules, "--out", root.appendingPathComponent("rules.zip").path]).status == 0)
        let env = ["XDG_CACHE_HOME": cache.path]
        let expected = Self.withoutIDs(try CLIRunner.run(["run", "--rules", Self.rules, Self.events]).stdout)
        var url = ""
        try withPublisher(root) { port in
            url = "http://127.0.0.1:\(port)/rules.zip"
            let first = try CLIRunner.run(["run", "--rules", url, Self.events], environment: env)
            #expect(first.status == 0, "\(first.transcript)")
            #expect(Self.withoutIDs(first.stdout) == expected)
            let second = try CLIRunner.run(["run", "--rules", url, Self.events], environment: env)
            #expect(Self.withoutIDs(second.stdout) == expected)
            let seen = try log(port)
            #expect(seen.count == 2)
            let headers = seen.last?["headers"] as? [String: String] ?? [:]
            #expect(headers["If-None-Match"] != nil, "the second fetch is conditional: \(headers)")
            // A publisher that sends Last-Modified alone: the second fetch asks If-Modified-Since and gets a 304.
            let dated = "http://127.0.0.1:\(port)/_noetag/rules.zip"
            #expect(try CLIRunner.run(["lint", dated], environment: env).status == 0)
            #expect(try CLIRunner.run(["lint", dated], environment: env).status == 0)
            let asked = (try log(port).last?["headers"] as? [String: String]) ?? [:]
            #expect(asked["If-Modified-Since"] != nil && asked["If-None-Match"] == nil, "\(asked)")
            // Every command that takes rules takes the URL.
            #expect(try CLIRunner.run(["lint", url], environment: env).status == 0)
            #expect(try CLIRunner.run(["match", "--rules", url, Self.events], environment: env).status == 0)
            #expect(try CLIRunner.run(["convert", url, "--to", "yaml"], environment: env).status == 0)

            // Nothing a client sends makes RuleKit fetch: a `rules.url` in the configuration state is not followed.
            let before = try log(port).count
            let state = root.appendingPathComponent("state.json")
            try #"{"rules.url":"http://127.0.0.1:\#(port)/other.zip","global.privacy":"optedin"}"#.write(
                to: state, atomically: true, encoding: .utf8)
            let withState = try CLIRunner.run(
                ["run", "--rules", Self.rules, "--state", "com.adobe.module.configuration=" + state.path, Self.events], environment: env)
            #expect(withState.status == 0, "\(withState.transcript)")
            #expect(try log(port).count == before, "a configuration's rules.url was fetched")

            let missing = try CLIRunner.run(["run", "--rules", "http://127.0.0.1:\(port)/nothing.zip", Self.events], environment: env)
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("answered 404"), "\(missing.transcript)")

            let redirected = try CLIRunner.run(
                ["lint", "--no-cache", "http://127.0.0.1:\(port)/_redirect/3/rules.zip"], environment: env)
            #expect(redirected.status == 0, "\(redirected.transcript)")
            let looping = try CLIRunner.run(["lint", "--no-cache", "http://127.0.0.1:\(port)/_redirect/9/rules.zip"], environment: env)
            #expect(looping.status == 2)
            #expect(looping.stderr.contains("more than 5 redirects"), "\(looping.transcript)")
        }
        // The publisher is gone: the cached rules run, with a warning that gives their age.
        let offline = try CLIRunner.run(["run", "--rules", url, Self.events], environment: env)
        #expect(offline.status == 0, "\(offline.transcript)")
        #expect(offline.stderr.contains("using the rules cached"), "\(offline.transcript)")
        #expect(Self.withoutIDs(offline.stdout) == expected)
        let noCache = try CLIRunner.run(["run", "--no-cache", "--rules", url, Self.events], environment: env)
        #expect(noCache.status == 2, "\(noCache.transcript)")
    }

    @Test func aBrokenPublishIsRefusedAndLeavesTheCacheWhole() throws {
        guard LocalServer.isAvailable else {
            print("skipping: python3 (the rules publisher) is not available")
            return
        }
        let root = try folder()
        let cache = try folder()
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: cache)
        }
        let published = root.appendingPathComponent("rules.zip")
        #expect(try CLIRunner.run(["pack", Self.rules, "--out", published.path]).status == 0)
        let env = ["XDG_CACHE_HOME": cache.path]
        try withPublisher(root) { port in
            let url = "http://127.0.0.1:\(port)/rules.zip"
            #expect(try CLIRunner.run(["run", "--rules", url, Self.events], environment: env).status == 0)
            let cacheFiles = { try FileManager.default.subpathsOfDirectory(atPath: cache.path).filter { $0.hasSuffix(".rules") } }
            let cached = try cacheFiles().map { try Data(contentsOf: cache.appendingPathComponent($0)) }
            #expect(cached.count == 1)
            // A publish whose archive is refused: the command fails, and the cache still holds the good version.
            try zip(published, [("rules.json", Self.launchBroken, false), ("../x.json", "{}", false)])
            let broken = try CLIRunner.run(["run", "--rules", url, Self.events], environment: env)
            #expect(broken.status != 0 && broken.status < 128)
            #expect(broken.stderr.contains("refused"), "\(broken.transcript)")
            #expect(try cacheFiles().map { try Data(contentsOf: cache.appendingPathComponent($0)) } == cached)
        }
    }

    @Test func aKillDuringACacheWriteLeavesAWholeVersion() throws {
        guard LocalServer.isAvailable else {
            print("skipping: python3 (the rules publisher) is not available")
            return
        }
        let root = try folder()
        let cacheHome = try folder()
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: cacheHome)
        }
        let v1 = root.appendingPathComponent("v1.zip")
        let v2 = root.appendingPathComponent("v2.zip")
        #expect(try CLIRunner.run(["pack", Self.rules, "--out", v1.path]).status == 0)
        #expect(try CLIRunner.run(["pack", Self.rules + "/commerce.yaml", "--out", v2.path]).status == 0)
        let versions = [try Data(contentsOf: v1), try Data(contentsOf: v2)]
        let published = root.appendingPathComponent("rules.zip")
        try versions[0].write(to: published)
        let env = ["XDG_CACHE_HOME": cacheHome.path]
        try withPublisher(root) { port in
            let url = "http://127.0.0.1:\(port)/rules.zip"
            #expect(try CLIRunner.run(["run", "--rules", url, Self.events], environment: env).status == 0)
            let cache = RulesCache(directory: cacheHome.appendingPathComponent("rulekit/rules").path)
            var generator = SeededGenerator(state: 61)
            for round in 0..<12 {
                try versions[(round + 1) % 2].write(to: published, options: .atomic)
                let p = Process()
                p.executableURL = try CLIRunner.requireExecutable()
                p.arguments = ["run", "--rules", url, Self.events]
                p.environment = ProcessInfo.processInfo.environment.merging(env) { _, new in new }
                p.standardOutput = FileHandle.nullDevice
                p.standardError = FileHandle.nullDevice
                try p.run()
                Thread.sleep(forTimeInterval: Double.random(in: 0...0.25, using: &generator))
                kill(p.processIdentifier, SIGKILL)
                p.waitUntilExit()
                // Whenever the kill came, the cache holds one whole version.
                let body = cache.load(url).map { Data($0.body) }
                #expect(body != nil && versions.contains(body!), "round \(round): the cache entry is torn or gone")
            }
        }
    }

    @Test func credentialsAreSentToThePublisherAndNeverPrinted() throws {
        guard LocalServer.isAvailable else {
            print("skipping: python3 (the rules publisher) is not available")
            return
        }
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let headers = root.appendingPathComponent("headers.txt")
        try "# the publisher's token\nAuthorization: Bearer s3cret-token\n".write(to: headers, atomically: true, encoding: .utf8)
        try withPublisher(root) { port in
            let r = try CLIRunner.run(
                ["lint", "--no-cache", "--rules-header-file", headers.path, "http://127.0.0.1:\(port)/_status/401?token=s3cret-token"])
            #expect(r.status == 2)
            #expect(r.stderr.contains("answered 401"), "\(r.transcript)")
            #expect(!(r.stdout + r.stderr).contains("s3cret"), "\(r.transcript)")
            let seen = try log(port)
            #expect((seen.first?["headers"] as? [String: String])?["Authorization"] == "Bearer s3cret-token")
        }
        let plain = try CLIRunner.run(["lint", "--no-cache", "http://rules.example.com/rules.zip"])
        #expect(plain.status == 2)
        #expect(plain.stderr.contains("plain http to 'rules.example.com' is refused"), "\(plain.transcript)")
    }

    @Test func theTransportBoundsTimeAndBodyAndSeesACutConnection() async throws {
        guard LocalServer.isAvailable else {
            print("skipping: python3 (the rules publisher) is not available")
            return
        }
        let root = try folder()
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(repeating: 0x41, count: 200_000).write(to: root.appendingPathComponent("big.json"))
        try Data(repeating: 0x41, count: 50_000).write(to: root.appendingPathComponent("small.json"))
        let server = try LocalServer(script: Self.fixtures.appendingPathComponent("rules_publisher.py"), arguments: ["--root", root.path])
        defer { server.stop() }
        let transport = try HTTPRulesTransport()
        var options = RemoteRules.Options()
        options.timeout = .milliseconds(500)
        options.maxBodyBytes = 100_000
        let remote = RemoteRules(transport: transport, options: options)
        let base = "http://127.0.0.1:\(server.port)"
        for (path, why) in [
            ("/_slow/30/small.json", "no whole answer within"), ("/big.json", "larger than the limit of 100000 bytes"),
            ("/_reset/small.json", "closed the connection"),
            ("/_status/500", "answered 500"),
        ] {
            do {
                _ = try await remote.fetch(base + path)
                Issue.record("\(path) fetched")
            } catch {
                let message = error.diagnostics.first?.message ?? ""
                #expect(error.diagnostics.first?.code == .fetchFailed)
                #expect(why.isEmpty || message.contains(why), "\(path): \(message)")
            }
        }
        try await transport.shutdown()
    }
}
