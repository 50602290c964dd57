// One `Name: value` HTTP header as written in RuleKit's header files (a rules publisher's, postback
// receivers'): the one check of a name and a value, so no file lets through what another refuses.
internal import Foundation

/// A header line's parts.
public enum HeaderLine {
    /// `text` (trimmed) as a header, or why it is not one. The line's text is never quoted in the reason:
    /// it may hold a secret.
    ///
    /// - Parameter text: the line.
    /// - Returns: the name and the value (trimmed), or the reason.
    public static func parse(_ text: some StringProtocol) -> Result<(name: String, value: String), Failure> {
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
            return .failure(Failure(description: "expected 'Name: value'"))
        }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return .failure(Failure(description: "'\(name)' is not a header name"))
        }
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return .failure(Failure(description: "the value of \(name) holds a control character"))
        }
        return .success((name, value))
    }

    /// Why a line is not a header.
    public struct Failure: Error, CustomStringConvertible {
        /// The reason.
        public var description: String
    }
}
