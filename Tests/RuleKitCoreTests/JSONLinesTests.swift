import Foundation
import RuleKitTestSupport
import Testing

@testable import RuleKitCore

@Suite struct JSONLinesTests {
    @Test func streamsRecordsAcrossChunkBoundariesAndReportsBadLines() throws {
        let path = Scratch.url("rk-\(UUID()).jsonl").path
        var text = ""
        for i in 0..<500 { text += "{\"i\": \(i), \"pad\": \"\(String(repeating: "x", count: i % 37))\"}\n" }
        text += "\n{broken\n{\"last\": true}"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }

        var good = 0
        var bad: [DiagnosticError] = []
        for r in try JSONLinesReader(path: path, chunkSize: 97) {
            switch r {
            case .success: good += 1
            case .failure(let e): bad.append(e)
            }
        }
        #expect(good == 501)
        #expect(bad.count == 1)
        #expect(bad.first?.diagnostics[0].location?.line == 502)
    }

    /// The `memchr` search the line reader uses, against the plain `firstIndex(of:)`.
    @Test func byteSearchAgreesWithThePlainSearch() {
        var g = SeededGenerator(state: 7)
        for _ in 0..<2000 {
            let bytes = (0..<g.int(200)).map { _ in UInt8(g.pick([0x0A, 0x20, 0x7B, 0xFF, 0x00])) }
            let from = g.int(bytes.count + 1)
            #expect(bytes.firstIndex(of: 0x0A, from: from) == bytes[from...].firstIndex(of: 0x0A))
        }
        #expect([UInt8]().firstIndex(of: 0x0A, from: 0) == nil)
    }

    @Test func missingFileIsAnError() {
        #expect(throws: DiagnosticError.self) { try JSONLinesReader(path: "/no/such/file.jsonl") }
    }
}

/// Regressions from the hostile-input campaign (issue 15): each is a class of input that used to trap,
/// hang or grow without bound.
@Suite struct HostileStreamTests {
    static func temp(_ name: String) -> String {
        Scratch.url("rk-\(UUID())-\(name)").path
    }

    @Test func aFolderAsAnEventStreamIsAnErrorNotATrap() throws {
        let dir = Self.temp("dir")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect {
            try JSONLinesReader(path: dir)
        } throws: { error in
            (error as? DiagnosticError)?.diagnostics.first?.message.contains("is a folder") == true
        }
        #expect(throws: DiagnosticError.self) { try ByteInput.readAll(dir) }
    }

    @Test func aLineWithNoEndStopsAtTheRecordLimitInLinearTime() throws {
        // 3 MB without a newline read in 1 KB chunks: the old reader rescanned the tail on every refill
        // (quadratic). The limit ends the stream with a located error.
        let path = Self.temp("long.jsonl")
        try ("{\"ok\":1}\n" + String(repeating: "x", count: 3 << 20)).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var results: [Result<Value, DiagnosticError>] = []
        for r in try JSONLinesReader(path: path, limits: ReaderLimits(maxRecordBytes: 1 << 20), chunkSize: 1024) {
            results.append(r)
        }
        #expect(results.count == 2)
        guard results.count == 2, case .failure(let e) = results[1] else { return }
        #expect(e.diagnostics[0].code == .limitExceeded)
        #expect(e.diagnostics[0].location?.line == 2)
    }

    @Test func aLongLineUnderTheLimitIsReadWhole() throws {
        let path = Self.temp("ok.jsonl")
        let big = String(repeating: "y", count: 200_000)
        try "{\"s\":\"\(big)\"}\n{\"n\":2}\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let values = try JSONLinesReader(path: path, chunkSize: 512).map { try $0.get() }
        #expect(values.count == 2)
        #expect(values.first?["s"]?.stringValue?.count == 200_000)
    }

    @Test func readAllStopsAtItsLimitWithoutReadingTheRest() throws {
        // /dev/zero never ends: a reader that checks the size only after reading never returns.
        #expect {
            try ByteInput.readAll("/dev/zero", limit: 1 << 20)
        } throws: { error in
            (error as? DiagnosticError)?.diagnostics.first?.code == .limitExceeded
        }
        let path = Self.temp("exact")
        try Data(repeating: 0x61, count: 1000).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try ByteInput.readAll(path, limit: 1000).count == 1000)
        #expect(throws: DiagnosticError.self) { try ByteInput.readAll(path, limit: 999) }
    }

    @Test func regularFilesAreReadWholeAtTheirSize() throws {
        // A regular file is read into one array of its size; the bytes are the file's, whatever its size.
        var g = SeededGenerator(state: 7)
        for size in [0, 1, 4095, 65_535, 65_536, 65_537, 200_001] {
            let bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: g.int(256)) }
            let path = Self.temp("whole-\(size)")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(try ByteInput.readAll(path) == bytes, "\(size) bytes")
        }
        // A file whose size says nothing of its contents (the kernel's files say 0) is read to its end.
        let version = try ByteInput.readAll("/proc/version")
        let expected = Array(try String(contentsOfFile: "/proc/version", encoding: .utf8).utf8)
        #expect(!version.isEmpty && version == expected)
    }

    @Test func aMissingFileNamesIt() {
        #expect {
            try ByteInput.readAll("/no/such/file")
        } throws: { error in
            (error as? DiagnosticError)?.diagnostics.first?.message == "no such file '/no/such/file'"
        }
    }
}
