// The fuzz targets' shared harness: how an oracle reports a disagreement, and the limits inputs are read
// with. A disagreement aborts the process, so libFuzzer saves the input as a crash and the campaign
// report counts it like any other.
import Foundation
public import RuleKitCore

/// What every oracle shares: how a disagreement is reported to libFuzzer.
public enum Oracle {
    /// Limits small enough that one input costs milliseconds, large enough to reach every limit check.
    public static let limits = ReaderLimits(
        maxDepth: 64, maxDocumentBytes: 1 << 20, maxScalarBytes: 1 << 16,
        maxNodes: 200_000, maxRecordBytes: 1 << 20)

    /// Reports a broken oracle and stops (libFuzzer keeps the input).
    public static func fail(_ target: String, _ message: @autoclosure () -> String, input: [UInt8]) -> Never {
        let text = String(decoding: input.prefix(600), as: UTF8.self)
        FileHandle.standardError.write(
            Data("\n=== \(target) oracle failed: \(message())\n--- input (\(input.count) bytes)\n\(text)\n".utf8))
        abort()
    }

    /// Every source location of a parsed document must point inside the input.
    public static func checkLocations(_ target: String, _ map: SourceMap?, in input: [UInt8], yaml: Bool = false) {
        guard let map, !map.entries.isEmpty else { return }
        let lines = Lines(input, yaml: yaml)
        for (i, e) in map.entries.enumerated() {
            if !lines.contains(line: Int(e.line), column: Int(e.column)) {
                fail(target, "entry \(i) at \(e.line):\(e.column) is outside the input", input: input)
            }
            if e.keyLine > 0, !lines.contains(line: Int(e.keyLine), column: Int(e.keyColumn)) {
                fail(target, "key of entry \(i) at \(e.keyLine):\(e.keyColumn) is outside the input", input: input)
            }
        }
    }

    /// A diagnostic's location, when it has one in this input, must point inside it.
    public static func checkLocations(_ target: String, _ error: DiagnosticError, in input: [UInt8], yaml: Bool = false) {
        let lines = Lines(input, yaml: yaml)
        for d in error.diagnostics {
            guard let l = d.location else { continue }
            if !lines.contains(line: l.line, column: l.column) {
                fail(target, "diagnostic '\(d)' is outside the input", input: input)
            }
        }
    }

    /// Line lengths of an input, in bytes (a column may count characters, never more than bytes). JSON
    /// breaks lines at LF only; YAML (libyaml) at LF, CR, CRLF, NEL, LS and PS.
    struct Lines {
        var lengths: [Int] = []

        init(_ bytes: [UInt8], yaml: Bool = false) {
            var n = 0
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                var breakLength = 0
                if b == 0x0A {
                    breakLength = 1
                } else if yaml && b == 0x0D {
                    breakLength = i + 1 < bytes.count && bytes[i + 1] == 0x0A ? 2 : 1
                } else if yaml && b == 0xC2 && i + 1 < bytes.count && bytes[i + 1] == 0x85 {
                    breakLength = 2
                } else if yaml && b == 0xE2 && i + 2 < bytes.count && bytes[i + 1] == 0x80
                    && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9)
                {
                    breakLength = 3
                }
                if breakLength > 0 {
                    lengths.append(n)
                    n = 0
                    i += breakLength
                } else {
                    n += 1
                    i += 1
                }
            }
            lengths.append(n)
        }

        /// A position at most one past the end of its line (an error at the end of a line or input).
        func contains(line: Int, column: Int) -> Bool {
            line >= 1 && line <= lengths.count && column >= 1 && column <= lengths[line - 1] + 1
        }
    }
}
