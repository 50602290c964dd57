// Who may use the service: the bearer tokens of `--auth-token-file`, one per line, reloaded with the rules
// on SIGHUP (a token is rotated by adding the new one, reloading, moving the clients, removing the old
// one, reloading). A token is compared in time that does not depend on how much of it a guess got right,
// and is never logged.
internal import Foundation
public import RuleKitCore

/// The bearer tokens requests must present.
public final class AuthTokens: Sendable {
    /// The file the tokens are read from.
    public let file: String
    /// Each token with the line of the file it is on (how an audit line names it: never by its value).
    private let tokens: Locked<[(line: Int, token: [UInt8])]>

    /// Reads `file`: one token per line; blank lines and lines opening with `#` are skipped. A file that
    /// cannot be read, holds no token, or a token with a space or a control character is an error.
    public init(file: String) throws(DiagnosticError) {
        self.file = file
        tokens = Locked(try Self.read(file))
    }

    /// Reads the file again; on any error the previous tokens stay (and the error is handed back).
    public func reload() -> DiagnosticError? {
        do {
            let fresh = try Self.read(file)
            tokens.withLock { $0 = fresh }
            return nil
        } catch {
            return error
        }
    }

    /// How many tokens are in force.
    public var count: Int { tokens.withLock { $0.count } }

    /// Whether `token` (the bearer token a request presented, nil for none) is one in force. Every token is
    /// compared, each in time that depends only on its own length.
    public func accepts(token: String?) -> Bool { line(of: token) != nil }

    /// The line of the file `token` is on, nil when it is not one in force. Every token is compared, each
    /// in time that depends only on its own length.
    public func line(of token: String?) -> Int? {
        guard let token, !token.isEmpty else { return nil }
        let given = Array(token.utf8)
        var found: Int?
        for t in tokens.withLock({ $0 }) where Self.same(given, t.token) { found = t.line }
        return found
    }

    /// Whether `given` equals `token`, looking at every byte of `token` whatever `given` holds.
    static func same(_ given: [UInt8], _ token: [UInt8]) -> Bool {
        var diff = UInt(bitPattern: given.count ^ token.count)
        for i in token.indices { diff |= UInt(token[i] ^ (i < given.count ? given[i] : 0)) }
        return diff == 0
    }

    static func read(_ file: String) throws(DiagnosticError) -> [(line: Int, token: [UInt8])] {
        let bytes = try ByteInput.readAll(file, limit: 1 << 20)
        var out: [(line: Int, token: [UInt8])] = []
        for (n, raw) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            var line = raw[...]
            while let last = line.last, last == 0x0D || last == 0x20 || last == 0x09 { line = line.dropLast() }
            while let first = line.first, first == 0x20 || first == 0x09 { line = line.dropFirst() }
            if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
            guard line.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
                throw DiagnosticError(
                    .error(
                        .unreadable, "a token holds a space or a control character",
                        at: SourceLocation(file: file, line: n + 1, column: 1)))
            }
            out.append((n + 1, Array(line)))
        }
        guard !out.isEmpty else { throw DiagnosticError(.error(.unreadable, "no token in '\(file)' (one per line)")) }
        return out
    }
}
