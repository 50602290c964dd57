import Foundation
import RuleKitTestSupport
import Testing

@testable import RuleKitCore

@Suite struct JSONLinesPipelineTests {
    func file(_ text: String) throws -> String {
        let path = Scratch.url("rk-\(UUID()).jsonl").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Every record, in order, as (line, value or error message), through the pipeline.
    func records(_ path: String, workers: Int, blockSize: Int, chunkSize: Int = 1 << 20) throws -> [String] {
        var out: [String] = []
        try JSONLinesPipeline.run(
            try JSONLinesReader(path: path, chunkSize: chunkSize), blockSize: blockSize, workers: workers,
            makeTransform: {
                { block in
                    // Uneven work, so workers finish out of order.
                    if (block.lines.first?.number ?? 0) % 3 == 1 { usleep(200) }
                    return block.records().map { r in
                        switch r.value {
                        case .success(let v): "\(r.line) \(JSONWriter.string(v))"
                        case .failure(let e): "\(r.line) error \(e.diagnostics[0].location?.line ?? 0)"
                        }
                    }
                }
            },
            consume: { lines in
                out += lines
                return nil
            }
        )
        return out
    }

    @Test(arguments: [0, 1, 2, 4])
    func recordsComeBackInInputOrderAsTheReaderGivesThem(_ workers: Int) throws {
        var text = ""
        for i in 0..<2_000 {
            text += i % 97 == 5 ? "{broken \(i)\n" : i % 89 == 3 ? "  \n" : "{\"i\": \(i)}\n"
        }
        let path = try file(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var expected: [String] = []
        var reader = try JSONLinesReader(path: path).makeIterator()
        while let r = reader.next() {
            switch r {
            case .success(let v): expected.append("\(reader.lineNumber) \(JSONWriter.string(v))")
            case .failure(let e): expected.append("\(reader.lineNumber) error \(e.diagnostics[0].location?.line ?? 0)")
            }
        }
        for blockSize in [1, 7, 256] {
            #expect(try records(path, workers: workers, blockSize: blockSize, chunkSize: 61) == expected)
        }
    }

    @Test func aReadErrorEndsTheStreamAsItsLastRecord() throws {
        let path = try file("{\"a\":1}\n" + String(repeating: "x", count: 300))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var limited = ReaderLimits.default
        limited.maxRecordBytes = 100
        let limits = limited
        var got: [JSONLinesRecord] = []
        try JSONLinesPipeline.run(
            try JSONLinesReader(path: path, limits: limits, chunkSize: 16), blockSize: 10, workers: 2,
            makeTransform: { { $0.records(limits: limits) } },
            consume: { records in
                got += records
                return nil
            }
        )
        #expect(got.count == 2)
        #expect(got.last.map { if case .failure(let e) = $0.value { e.diagnostics[0].code == .limitExceeded } else { false } } == true)
    }

    /// Records handed over a few at a time are the records of the block, in order, in groups of the size
    /// asked (the last maybe fewer), with the read error that ended the stream last; documents handed over
    /// one by one are the block's documents.
    @Test func groupsOfRecordsAreTheBlocksRecords() throws {
        var text = ""
        for i in 0..<50 {
            let type = i % 2 == 0 ? "t" : "com.adobe.eventType.generic.track"
            text += i % 7 == 3 ? "{broken\n" : "{\"type\":\"\(type)\",\"data\":{\"i\":\(i)}}\n"
        }
        let path = try file(text + String(repeating: "x", count: 300))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var limited = ReaderLimits.default
        limited.maxRecordBytes = 100
        let limits = limited
        func describe(_ r: JSONLinesRecord) -> String {
            switch r.value {
            case .success(let v): "\(r.line) \(JSONWriter.string(v)) \(r.tape.map { String(decoding: $0.text, as: UTF8.self) } ?? "-")"
            case .failure(let e): "\(r.line) error \(e.diagnostics[0].message)"
            }
        }
        var all: [String] = []
        try JSONLinesPipeline.run(
            try JSONLinesReader(path: path, limits: limits), blockSize: 64, workers: 0,
            makeTransform: { { $0 } },
            consume: { block in
                let whole = block.records(limits: limits, tapeOf: "data").map(describe)
                all += whole
                // Known strings change which `String` a value is, never what it says.
                let known = ["com.adobe.eventType.generic.track", "t", "com.adobe.eventSource.requestContent"]
                #expect(block.records(limits: limits, tapeOf: "data", sharing: known).map(describe) == whole)
                for size in [1, 4, 16, 100] {
                    var grouped: [String] = []
                    var sizes: [Int] = []
                    block.records(limits: limits, tapeOf: "data", groupsOf: size) { group in
                        sizes.append(group.count)
                        grouped += group.map(describe)
                    }
                    #expect(grouped == whole)
                    #expect(sizes.dropLast().allSatisfy { $0 == size } && sizes.last.map { $0 <= size } == true)
                }
                var one: [Int] = []
                block.forEachDocument(limits: limits) { one.append($0.line) }
                #expect(one == block.documents(limits: limits).map(\.line))
                return nil
            }
        )
        // Every line once, in order, and the line over the limit as the stream's last record.
        #expect(all.count == 51 && all.last?.contains("error") == true)
        #expect(all.dropLast().map { Int($0.prefix { $0 != " " }) } == Array(1...50))
    }

    @Test func blocksInExistenceStayBounded() throws {
        let path = try file(String(repeating: "{\"a\":1}\n", count: 5_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let alive = Locked((now: 0, peak: 0))
        final class Tracked: Sendable {
            let alive: Locked<(now: Int, peak: Int)>
            init(_ alive: Locked<(now: Int, peak: Int)>) {
                self.alive = alive
                alive.withLock {
                    $0.now += 1
                    $0.peak = max($0.peak, $0.now)
                }
            }
            deinit { alive.withLock { $0.now -= 1 } }
        }
        var consumed = 0
        try JSONLinesPipeline.run(
            try JSONLinesReader(path: path), blockSize: 10, workers: 3,
            makeTransform: { { _ in Tracked(alive) } },
            consume: { _ in
                consumed += 1
                usleep(50)  // a slow consumer: the workers must wait for room
                return nil
            }
        )
        #expect(consumed == 500)
        #expect(alive.withLock { $0.peak } <= 3 + 2 + 1)
        #expect(alive.withLock { $0.now } == 0)
    }

    @Test func aThrowingConsumerStopsTheStream() throws {
        let path = try file(String(repeating: "{\"a\":1}\n", count: 10_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        struct Stop: Error {}
        var seen = 0
        #expect(throws: Stop.self) {
            try JSONLinesPipeline.run(
                try JSONLinesReader(path: path), blockSize: 10, workers: 2, makeTransform: { { $0.records().count } },
                consume: { n in
                    seen += n
                    if seen >= 50 { throw Stop() }
                    return nil
                }
            )
        }
        #expect(seen == 50)
    }

    @Test(arguments: [0, 2])
    func setupRunsWhileTheWorkersReadAndBeforeTheFirstBlockIsConsumed(_ workers: Int) throws {
        let path = try file(String(repeating: "{\"a\":1}\n", count: 100))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let transformed = Locked(0)
        var order: [String] = []
        try JSONLinesPipeline.run(
            try JSONLinesReader(path: path), blockSize: 10, workers: workers,
            makeTransform: {
                { block in
                    transformed.withLock { $0 += 1 }
                    return block.records().count
                }
            },
            setup: {
                // With workers, the first block is read meanwhile (the pipeline has room for it).
                if workers > 0 {
                    let deadline = Date().addingTimeInterval(30)
                    while transformed.withLock({ $0 }) == 0 && Date() < deadline { usleep(1000) }
                    #expect(transformed.withLock { $0 } >= 1)
                }
                order.append("setup")
            },
            consume: { n in
                order.append("\(n)")
                return nil
            }
        )
        #expect(order == ["setup"] + Array(repeating: "10", count: 10))
    }

    @Test(arguments: [0, 2])
    func aThrowingSetupStopsTheStreamBeforeAnyBlockIsConsumed(_ workers: Int) throws {
        let path = try file(String(repeating: "{\"a\":1}\n", count: 10_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        struct Stop: Error {}
        var consumed = 0
        #expect(throws: Stop.self) {
            try JSONLinesPipeline.run(
                try JSONLinesReader(path: path), blockSize: 10, workers: workers, makeTransform: { { $0.records().count } },
                setup: { throw Stop() },
                consume: { _ in
                    consumed += 1
                    return nil
                }
            )
        }
        #expect(consumed == 0)
    }

    @Test func givenBackOutputsAreReleasedByTheWorkers() throws {
        let path = try file(String(repeating: "{\"a\":1}\n", count: 1_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let releasedOnCaller = Locked(0)
        let caller = Thread.current
        final class Probe: @unchecked Sendable {
            // Compared by identity only.
            let caller: Thread
            let count: Locked<Int>
            init(_ caller: Thread, _ count: Locked<Int>) {
                self.caller = caller
                self.count = count
            }
            deinit { if Thread.current === caller { count.withLock { $0 += 1 } } }
        }
        let box = UncheckedBox(caller)
        try JSONLinesPipeline.run(
            try JSONLinesReader(path: path), blockSize: 10, workers: 2,
            makeTransform: { { _ in Probe(box.value, releasedOnCaller) } },
            consume: { probe in probe }
        )
        // Of the 100 blocks, those still in play when the input ended are released here (up to a pipeline's
        // depth retired after the workers' last read, and as many not yet consumed), and a slow worker may
        // find the stream ended before it drains what was given back; the rest went back to the workers.
        // Without the hand-back, all 100 would be released here.
        #expect(releasedOnCaller.withLock { $0 } < 50)
    }

    struct UncheckedBox<T>: @unchecked Sendable {
        let value: T
        init(_ value: T) { self.value = value }
    }

    /// Blocks take the read buffer with their lines in place: whatever the read size and block size, the
    /// blocks' lines are the lines the reader yields one by one (blank lines, CRLF, blanks at both ends, no
    /// final newline), and a line over the limit ends the stream where it stands, the lines before it kept.
    @Test(arguments: [1, 2, 3, 16, 61, 1000, 1 << 20])
    func blocksHoldTheLinesTheReaderYields(chunkSize: Int) throws {
        var limited = ReaderLimits.default
        limited.maxRecordBytes = 120
        let limits = limited
        var text = ""
        for i in 0..<300 {
            switch i % 11 {
            case 2: text += "\r\n"
            case 4: text += " \t{\"i\": \(i), \"crlf\": true}\t \r\n"
            case 7: text += "   \n"
            default: text += "{\"i\":\(i)}\n"
            }
        }
        for tail in ["{\"last\":true}", "{\"long\":\"" + String(repeating: "y", count: 200) + "\"}\n{\"after\":1}\n"] {
            let path = try file(text + tail)
            defer { try? FileManager.default.removeItem(atPath: path) }
            var expected: [String] = []
            var reader = try JSONLinesReader(path: path, limits: limits, chunkSize: chunkSize).makeIterator()
            while let r = reader.next() {
                switch r {
                case .success(let v): expected.append("\(reader.lineNumber) \(JSONWriter.string(v))")
                case .failure(let e): expected.append("\(reader.lineNumber) error \(e.diagnostics[0].code)")
                }
            }
            #expect(expected.count > 240)
            for blockSize in [1, 4, 7, 256] {
                var got: [String] = []
                var lines = try JSONLinesReader(path: path, limits: limits, chunkSize: chunkSize).makeIterator()
                while let block = lines.nextBlock(count: blockSize) {
                    #expect(block.lines.count <= blockSize)
                    got += block.records(limits: limits).map { r in
                        switch r.value {
                        case .success(let v): "\(r.line) \(JSONWriter.string(v))"
                        case .failure(let e): "\(r.line) error \(e.diagnostics[0].code)"
                        }
                    }
                }
                #expect(got == expected, "chunk \(chunkSize), block \(blockSize)")
            }
        }
    }
}
