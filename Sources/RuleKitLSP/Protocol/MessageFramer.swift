internal import Foundation

/// Cuts a byte stream into Language Server Protocol messages: a header block of `Name: value` lines ended
/// by an empty line (`\r\n\r\n`), whose `Content-Length` gives the number of body bytes that follow.
///
/// Memory is bounded whatever the peer sends: a header block longer than `maxHeaderBytes` is dropped as
/// malformed, and a body longer than `maxContentLength` is skipped as it arrives, never held. A malformed
/// block is reported and reading goes on: bytes that are not a header (a body with a wrong length, noise)
/// are skipped up to the next `Content-Length`.
public struct MessageFramer: Sendable {
    /// What a feed yields, in stream order.
    public enum Item: Sendable, Equatable {
        /// One message body.
        case message([UInt8])
        /// Bytes that were not a well-formed message, with why (for a log and a protocol error).
        case malformed(String)
    }

    /// The longest header block kept, in bytes.
    public static let maxHeaderBytes = 8192
    /// The largest body accepted, in bytes; a larger one is skipped.
    public let maxContentLength: Int

    private var buffer: [UInt8] = []
    /// Bytes of `buffer` already consumed.
    private var start = 0
    /// The body length announced by the last header block, while its body is awaited.
    private var bodyLength: Int?
    /// Bytes of an oversized body still to skip.
    private var skipping = 0

    /// A framer accepting bodies up to `maxContentLength` bytes (64 MiB by default).
    public init(maxContentLength: Int = 64 << 20) {
        self.maxContentLength = maxContentLength
    }

    /// Bytes held, waiting for the rest of their message.
    public var pendingByteCount: Int { buffer.count - start }

    /// Adds `bytes` and returns every message (or malformed block) they complete.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [Item] {
        var out: [Item] = []
        var input = bytes[...]
        if skipping > 0 {
            let n = min(skipping, input.count)
            skipping -= n
            input = input.dropFirst(n)
        }
        buffer.append(contentsOf: input)
        while next(into: &out) {}
        compact()
        return out
    }

    /// Takes one item off the buffer when it holds a whole one.
    private mutating func next(into out: inout [Item]) -> Bool {
        if skipping > 0 {
            let n = min(skipping, buffer.count - start)
            skipping -= n
            start += n
            return skipping == 0 && start < buffer.count
        }
        if let length = bodyLength {
            guard buffer.count - start >= length else { return false }
            out.append(.message(Array(buffer[start..<start + length])))
            start += length
            bodyLength = nil
            return true
        }
        guard let end = headerEnd() else {
            if buffer.count - start > Self.maxHeaderBytes {
                out.append(.malformed("a header block longer than \(Self.maxHeaderBytes) bytes was skipped"))
                // Keep the last 3 bytes: they may begin the `\r\n\r\n` that ends the block.
                start = buffer.count - 3
            }
            return false
        }
        let block = buffer[start..<end]
        start = end + 4
        switch Self.contentLength(in: block) {
        case .failure(let why):
            out.append(.malformed(why.message))
        case .success(let (length, skipped)):
            if skipped { out.append(.malformed("bytes outside a message were skipped")) }
            if length > maxContentLength {
                out.append(.malformed("a message of \(length) bytes is over the limit of \(maxContentLength) bytes and was skipped"))
                skipping = length
            } else {
                bodyLength = length
            }
        }
        return true
    }

    /// Where the `\r\n\r\n` after `start` begins, if it is in the buffer (and within the header bound).
    private func headerEnd() -> Int? {
        var i = start
        let last = min(buffer.count, start + Self.maxHeaderBytes + 4) - 4
        while i <= last {
            if buffer[i] == 13, buffer[i + 1] == 10, buffer[i + 2] == 13, buffer[i + 3] == 10 { return i }
            i += 1
        }
        return nil
    }

    /// The `Content-Length` of a header block, and whether anything before it was not a header line. The
    /// field is looked for anywhere in a line, so that a header glued to the noise before it (a body whose
    /// announced length was short) is still found.
    static func contentLength(in block: ArraySlice<UInt8>) -> Result<(Int, Bool), MalformedHeader> {
        let text = String(decoding: block, as: UTF8.self)
        var skipped = false
        var length: Int?
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: true) {
            if let r = line.range(of: "content-length:", options: .caseInsensitive) {
                if r.lowerBound != line.startIndex { skipped = true }
                let digits = line[r.upperBound...].trimmingCharacters(in: .whitespaces)
                guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy(\.isASCIIDigit), let n = Int(digits) else {
                    return .failure(MalformedHeader("Content-Length '\(digits.prefix(40))' is not a byte count"))
                }
                length = n
            } else if !Self.isHeaderLine(line) {
                skipped = true
            }
        }
        guard let length else { return .failure(MalformedHeader("a header block without Content-Length was skipped")) }
        return .success((length, skipped))
    }

    /// `Name: value`, with a token name.
    static func isHeaderLine(_ line: Substring) -> Bool {
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { return false }
        return line[..<colon].allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
    }

    /// Drops consumed bytes once they are most of the buffer.
    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            start = 0
        } else if start > 1 << 16, start > buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }

    /// `body` with its header, ready to write.
    public static func frame(_ body: [UInt8]) -> [UInt8] {
        Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }
}

/// Why a header block was not read.
public struct MalformedHeader: Error, Sendable, Equatable {
    /// For a person.
    public let message: String
    init(_ message: String) { self.message = message }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
