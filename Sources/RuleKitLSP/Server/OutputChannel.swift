public import RuleKitCore

/// Where the server's messages go: one writer shared by the message thread and the check worker, so that
/// two messages never interleave. A write that fails (the client went away) closes the channel; later
/// messages are dropped, and the server ends at the end of its input.
public final class OutputChannel: Sendable {
    private let write: @Sendable ([UInt8]) -> Bool
    private let state = Locked(true)

    /// A channel writing framed messages through `write` (false: the write failed).
    public init(write: @escaping @Sendable ([UInt8]) -> Bool) {
        self.write = write
    }

    /// Whether writes still go through.
    public var isOpen: Bool { state.withLock { $0 } }

    /// Frames and writes one message.
    public func send(_ message: Value) {
        var body: [UInt8] = []
        JSONWriter.write(message, to: &body)
        let framed = MessageFramer.frame(body)
        state.withLock { open in
            guard open else { return }
            if !write(framed) { open = false }
        }
    }

    /// `window/logMessage` at `type` (1 error, 2 warning, 3 info, 4 log).
    public func log(_ text: String, type: Int = 3) {
        send(OutgoingMessage.notification("window/logMessage", ["type": .int(Int64(type)), "message": .string(text)]))
    }
}
