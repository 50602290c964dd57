public import Foundation
public import RuleKitCore
internal import RuleKitRules

/// A message leaving the host: a request with a JSON body.
public struct OutboundMessage: Sendable, Hashable {
    /// Where the message goes.
    public var url: String
    /// The HTTP method.
    public var method: String
    /// Header names and values (non-string values are sent as JSON text).
    public var headers: ValueObject
    /// The JSON body, if any.
    public var body: Value?

    /// A message to `url`, a POST by default.
    ///
    /// - Parameters:
    ///   - url: where it goes.
    ///   - method: the HTTP method.
    ///   - headers: header names and values.
    ///   - body: the JSON body.
    public init(url: String, method: String = "POST", headers: ValueObject = [:], body: Value? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }

    /// The event rules see: type `OutboundMessage.eventType`, source `eventSource`, data
    /// `{url, method, headers, body}`.
    public static let eventType = "com.rulekit.eventType.outbound"
    /// The source of outbound-message events.
    public static let eventSource = "com.rulekit.eventSource.requestContent"

    var eventData: ValueObject {
        var o: ValueObject = ["url": .string(url), "method": .string(method), "headers": .object(headers)]
        if let body { o["body"] = body }
        return o
    }

    init?(eventData d: ValueObject) {
        guard case .string(let url)? = d["url"] else { return nil }
        self.url = url
        method = d["method"]?.stringValue ?? "POST"
        headers = d["headers"]?.objectValue ?? [:]
        body = d["body"]
    }

    /// JSON form, for the JSON-lines transport.
    public var value: Value { .object(eventData) }
}

extension RulesControl {
    /// Runs a message through the rules (the outbound stage): rules that match the outbound event type
    /// can add, modify or remove (`mod` with null) body fields and headers. Other consequences run as
    /// for any event.
    ///
    /// - Parameter message: the message about to leave.
    /// - Returns: the message as the rules leave it.
    public func outbound(_ message: OutboundMessage) -> OutboundMessage {
        guard let engine = extensionRef?.engine else { return message }
        let event = Event(
            name: "Outbound message", type: OutboundMessage.eventType,
            source: OutboundMessage.eventSource, data: message.eventData)
        let processed = engine.process(event)
        return processed.data.flatMap(OutboundMessage.init(eventData:)) ?? message
    }
}

/// Where outbound messages go.
public protocol Transport: Sendable {
    /// Sends one message; the result is the final status (HTTP status, or 0 for non-HTTP transports).
    ///
    /// - Parameter message: the message.
    /// - Returns: the final status.
    /// - Throws: `TransportError` when it could not be delivered.
    func send(_ message: OutboundMessage) async throws -> Int
}

/// Why a transport gave up.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// The last HTTP status, when there was a response.
    public var status: Int?
    /// The message.
    public var description: String { message }

    /// A transport's failure: what went wrong, and the last HTTP status when there was a response.
    ///
    /// - Parameters:
    ///   - message: what went wrong.
    ///   - status: the last HTTP status, when there was a response.
    public init(message: String, status: Int? = nil) {
        self.message = message
        self.status = status
    }
}

/// Writes each message as one JSON line (to a file or standard output).
public final class JSONLinesTransport: Transport {
    private let handle: FileHandle
    private let lock = Locked(())

    /// Writes to `handle` (standard output by default).
    ///
    /// - Parameter handle: where lines are written.
    public init(handle: FileHandle = .standardOutput) {
        self.handle = handle
    }

    /// Appends to the file at `path`, creating it when missing.
    ///
    /// - Parameter path: the file.
    /// - Throws: `TransportError` when it cannot be opened.
    public convenience init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let h = FileHandle(forWritingAtPath: path) else { throw TransportError(message: "cannot open '\(path)'") }
        h.seekToEndOfFile()
        self.init(handle: h)
    }

    /// Writes the message as one JSON line; always answers 0.
    ///
    /// - Parameter message: the message.
    /// - Returns: 0.
    /// - Throws: nothing (the `Transport` signature allows it).
    public func send(_ message: OutboundMessage) async throws -> Int {
        let line = JSONWriter.string(message.value) + "\n"
        lock.withLock { _ in handle.write(Data(line.utf8)) }
        return 0
    }
}

/// The outbound path of a host: every message through the rules' outbound stage, then the transport.
public struct OutboundPipeline: Sendable {
    /// The rules' outbound stage (nil: messages go out unchanged).
    public let rules: RulesControl?
    /// Where messages go after the rules.
    public let transport: any Transport

    /// A pipeline from the rules' outbound stage to `transport`.
    ///
    /// - Parameters:
    ///   - rules: the rules' outbound stage (nil: none).
    ///   - transport: where messages go.
    public init(rules: RulesControl?, transport: any Transport) {
        self.rules = rules
        self.transport = transport
    }

    /// Sends `message` after the rules have seen it; returns the final status.
    @discardableResult
    ///
    /// - Parameter message: the message.
    /// - Returns: the transport's final status.
    /// - Throws: the transport's error.
    public func send(_ message: OutboundMessage) async throws -> Int {
        try await transport.send(rules?.outbound(message) ?? message)
    }
}
