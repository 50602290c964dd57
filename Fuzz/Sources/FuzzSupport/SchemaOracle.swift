// JSON Schema oracle: the input is `[schema, instance]`. Any schema compiles or is refused with a
// message (never a crash, a hang or a stack overflow: cycles and long in-place chains are refused);
// the verdict-only path (`isValid`, which stops at the first failure and memoizes by value) agrees
// with the full one (`validate`, which lists every error); every error points at a location that
// exists in the instance; the instance read from a tape gets the same verdict. libFuzzer's -timeout
// bounds each input, so a regex that backtracks without end, or any other unbounded work, is reported
// as a timeout.
import Foundation
import RuleKitCore

@testable import RuleKitXDM

/// The JSON Schema oracle: `[schema, instance]` compiles or is refused, and the verdicts are consistent.
public enum SchemaOracle {
    static let name = "fuzz-schema"

    /// Checks one input; traps (a finding for libFuzzer) on any disagreement.
    public static func check(_ bytes: [UInt8]) {
        guard let pair = try? JSONReader.read(bytes, limits: Oracle.limits).value,
            case .array(let parts) = pair, parts.count == 2
        else { return }
        let (schema, instance) = (parts[0], parts[1])
        for formats in [true, false] {
            let validator: JSONSchemaValidator
            do {
                validator = try JSONSchemaValidator(schema: schema, assertFormats: formats)
            } catch {
                return
            }
            let verdict = validator.isValid(instance)
            let errors = validator.validate(instance, maxErrors: 50)
            if verdict != errors.isEmpty {
                Oracle.fail(
                    name, "isValid says \(verdict), validate lists \(errors.count) errors: \(errors.prefix(3)) (formats \(formats))",
                    input: bytes)
            }
            // Read from a tape in place (`TapeInstance`), the verdict is the same: as a member's value
            // (node 2 of `{"v": instance}`), and as the root when the instance is an object.
            if let tape = JSONTape.of(["v": instance]), validator.isValid(tape, node: 2) != verdict {
                Oracle.fail(name, "the tape's verdict is not \(verdict) (formats \(formats))", input: bytes)
            }
            if case .object(let o) = instance, let tape = JSONTape.of(o) {
                if validator.isValid(tape) != verdict || validator.validate(tape, maxErrors: 50) != errors {
                    Oracle.fail(name, "validating the object's tape differs from validating the object", input: bytes)
                }
            }
            for e in errors where !exists(e.instancePath, in: instance) {
                Oracle.fail(name, "error at \(e.instancePath), which is not in the instance: \(e)", input: bytes)
            }
        }
    }

    /// A pointer token's bytes unescaped (`~1` is `/`, `~0` is `~`), byte by byte: a character-wise
    /// replacement misses "~1" followed by a combining mark.
    static func unescape(_ b: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < b.count {
            if b[i] == 0x7E, i + 1 < b.count, b[i + 1] == 0x31 || b[i + 1] == 0x30 {
                out.append(b[i + 1] == 0x31 ? 0x2F : 0x7E)
                i += 2
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether a JSON pointer resolves in `value`.
    static func exists(_ pointer: String, in value: Value) -> Bool {
        if pointer.isEmpty { return true }
        guard pointer.utf8.first == 0x2F else { return false }
        var v = value
        // Split by scalars: "/" followed by a combining mark is one Character.
        for raw in pointer.utf8.dropFirst().split(separator: 0x2F, omittingEmptySubsequences: false) {
            let token = unescape(Array(raw))
            switch v {
            case .object(let o):
                guard let next = o[token] else { return false }
                v = next
            case .array(let a):
                guard let i = Int(token), i >= 0, i < a.count else { return false }
                v = a[i]
            default:
                return false
            }
        }
        return true
    }
}
