public import RuleKitCore

/// A JSON-RPC 2.0 request id: a number or a string, echoed back as it came.
public enum RequestID: Sendable, Hashable, CustomStringConvertible {
    case int(Int64)
    case string(String)

    /// The id as JSON.
    public var value: Value {
        switch self {
        case .int(let i): .int(i)
        case .string(let s): .string(s)
        }
    }

    /// The id as text, for logs.
    public var description: String {
        switch self {
        case .int(let i): String(i)
        case .string(let s): s
        }
    }

    init?(_ v: Value?) {
        switch v {
        case .int(let i)?: self = .int(i)
        case .string(let s)?: self = .string(s)
        default: return nil
        }
    }
}

/// The error codes of JSON-RPC and of the Language Server Protocol that this server answers with.
public enum ErrorCode: Int64, Sendable {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    case serverNotInitialized = -32002
    case requestCancelled = -32800
    case contentModified = -32801
}

/// One message from the client, as read.
public enum IncomingMessage: Sendable {
    /// A call that wants an answer.
    case request(id: RequestID, method: String, params: Value)
    /// A call that wants none.
    case notification(method: String, params: Value)
    /// An answer to a request of ours.
    case response(id: RequestID?)
    /// Not a message: answered with `error` (to `id` when one could be read, else to null).
    case invalid(id: RequestID?, code: ErrorCode, message: String)

    /// Reads one message body. Bodies are bounded by the framer; nesting and sizes by `limits`.
    public static func parse(_ body: [UInt8], limits: ReaderLimits = .default) -> IncomingMessage {
        let value: Value
        do { value = try JSONReader.read(body, file: "<message>", limits: limits).value } catch {
            let why = error.diagnostics.first?.message ?? "not JSON"
            return .invalid(id: nil, code: .parseError, message: "the message is not JSON: \(why)")
        }
        guard case .object(let o) = value else {
            return .invalid(id: nil, code: .invalidRequest, message: "a message is a JSON object")
        }
        let id = RequestID(o["id"])
        if o["id"] != nil, id == nil, o["id"] != .null {
            return .invalid(id: nil, code: .invalidRequest, message: "'id' is a number or a string")
        }
        guard let methodValue = o["method"] else {
            if o["result"] != nil || o["error"] != nil { return .response(id: id) }
            return .invalid(id: id, code: .invalidRequest, message: "a message has a 'method', or is a response")
        }
        guard case .string(let method) = methodValue else {
            return .invalid(id: id, code: .invalidRequest, message: "'method' is a string")
        }
        let params = o["params"] ?? .null
        switch params {
        case .object, .array, .null: break
        default: return .invalid(id: id, code: .invalidRequest, message: "'params' is an object or an array")
        }
        if let id { return .request(id: id, method: method, params: params) }
        return .notification(method: method, params: params)
    }
}

/// Messages this server writes.
public enum OutgoingMessage {
    /// The answer to request `id`.
    public static func result(_ id: RequestID, _ result: Value) -> Value {
        ["jsonrpc": "2.0", "id": id.value, "result": result]
    }

    /// An error answer (`id` nil: to a message whose id could not be read).
    public static func error(_ id: RequestID?, _ code: ErrorCode, _ message: String) -> Value {
        ["jsonrpc": "2.0", "id": id?.value ?? .null, "error": ["code": .int(code.rawValue), "message": .string(message)]]
    }

    /// A notification to the client.
    public static func notification(_ method: String, _ params: Value) -> Value {
        ["jsonrpc": "2.0", "method": .string(method), "params": params]
    }

    /// A request to the client (`client/registerCapability`, ...).
    public static func request(_ id: Int64, _ method: String, _ params: Value) -> Value {
        ["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]
    }
}
