// What a receiver needs beyond the hit, kept out of rules: headers per receiver read from a file (an
// `Authorization` a partner issued) and a signature of each hit with a shared secret, so a receiver can
// tell RuleKit's hits from anyone else's. Neither is ever logged.
internal import Crypto
internal import Foundation
public import RuleKitCore

/// Headers per receiver and the signing secret.
public struct PostbackReceivers: Sendable {
    /// Headers by receiver (`host:port`); those under `*` go to every receiver, before its own.
    public var headers: [String: [(name: String, value: String)]] = [:]
    /// The HMAC-SHA256 key, or nil: hits are not signed.
    public var secret: [UInt8]?

    /// Nothing extra.
    public init() {}

    /// The header carrying the signature.
    public static let signatureHeader = "X-RuleKit-Signature"

    /// The headers `hit` is sent with beyond its own: the file's for every receiver, then its receiver's,
    /// then the signature.
    ///
    /// - Parameter hit: the hit.
    /// - Returns: the headers, in order.
    public func headers(for hit: Postback) -> [(name: String, value: String)] {
        var out = headers["*"] ?? []
        out += headers[hit.receiver] ?? []
        if let secret { out.append((Self.signatureHeader, Self.signature(of: hit, secret: secret))) }
        return out
    }

    /// `sha256=` and the HMAC-SHA256 of the hit's idempotency key, a full stop and its body (empty without
    /// one), in lowercase hexadecimal: the key binds the signature to one hit.
    ///
    /// - Parameters:
    ///   - hit: the hit.
    ///   - secret: the key.
    /// - Returns: the header's value.
    public static func signature(of hit: Postback, secret: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("\(hit.key).\(hit.body ?? "")".utf8), using: SymmetricKey(data: secret))
        return "sha256=" + Hex.lowercase(mac)
    }

    /// Reads a headers file: one header a line, `RECEIVER Name: value`, where RECEIVER is `host:port` as
    /// hits are grouped (`partner.example:443`) or `*`; blank lines and lines starting `#` are skipped.
    ///
    /// - Parameters:
    ///   - text: the file's text.
    ///   - file: its path, for diagnostics.
    /// - Returns: the headers by receiver.
    /// - Throws: a `DiagnosticError` at the first line that is not a header.
    public static func headers(parsing text: String, file: String) throws(DiagnosticError) -> [String: [(name: String, value: String)]] {
        var out: [String: [(name: String, value: String)]] = [:]
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            func bad(_ why: String) -> DiagnosticError {
                DiagnosticError(
                    .error(
                        "postbacks.headers", "\(why) (a line is `RECEIVER Name: value`, RECEIVER host:port or *)",
                        at: SourceLocation(file: file, line: n + 1, column: 1)))
            }
            guard let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else { throw bad("no header after the receiver") }
            let receiver = String(line[..<space])
            let header = line[space...].trimmingCharacters(in: .whitespaces)
            guard receiver == "*" || Self.isReceiver(receiver) else { throw bad("'\(receiver)' is not host:port") }
            switch HeaderLine.parse(header) {
            case .success(let h): out[receiver.lowercased(), default: []].append(h)
            case .failure(let why): throw bad(why.description)
            }
        }
        return out
    }

    static func isReceiver(_ s: String) -> Bool {
        guard let colon = s.lastIndex(of: ":"), colon != s.startIndex, let port = Int(s[s.index(after: colon)...]) else { return false }
        return (1...65_535).contains(port)
    }
}
