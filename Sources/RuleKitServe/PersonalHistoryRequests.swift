// A person's history through the service (`/v1/history/…`): what the request asks (one identity, and for an
// erasure its masks and window), and the store's answer bounded in time. A store that is down answers
// "unavailable" at once (the breaker is open) or when the time runs out; the caller answers 503 and the
// client retries — an erasure asked twice erases once and leaves a second tombstone, which is harmless.
internal import Foundation
public import RuleKitCore
internal import RuleKitHistory

/// One person's history asked of the service: whose, and for an erasure, which records.
public struct PersonalHistoryRequest: Sendable, Equatable {
    /// The identity, as events carry it.
    public var identity: String
    /// The hashes of the masks whose records an erasure takes (nil: every record).
    public var hashes: Set<UInt32>?
    /// The window's start, in milliseconds since 1970 (nil: from the first record).
    public var from: Double?
    /// The window's end (nil: up to the erasure).
    public var to: Double?

    /// The most bytes of an identity: longer is not one any event carries.
    public static let maxIdentityBytes = 1024

    /// A request as given.
    ///
    /// - Parameters:
    ///   - identity: whose history.
    ///   - hashes: the masks' hashes (nil: all).
    ///   - from: the window's start (ms).
    ///   - to: the window's end (ms).
    public init(identity: String, hashes: Set<UInt32>? = nil, from: Double? = nil, to: Double? = nil) {
        self.identity = identity
        self.hashes = hashes
        self.from = from
        self.to = to
    }

    /// The request a JSON body makes: `{"identity": ID, "masks": [{…}], "maskHashes": [N], "from": T, "to": T}`
    /// (times as ISO 8601 or milliseconds); the message saying what is wrong otherwise.
    ///
    /// - Parameter body: the parsed body.
    /// - Returns: the request, or why the body is not one.
    public static func parse(body: Value) -> Result<PersonalHistoryRequest, Problem> {
        guard case .object(let o) = body else { return .failure(Problem("the body must be a JSON object with an \"identity\"")) }
        for key in o.keys where !["identity", "masks", "maskHashes", "from", "to"].contains(key) {
            return .failure(Problem("unknown member \"\(key)\" (identity, masks, maskHashes, from, to)"))
        }
        guard case .string(let identity)? = o["identity"] else {
            return .failure(Problem("\"identity\" must be given, as a string"))
        }
        var masks: [ValueObject] = []
        switch o["masks"] {
        case nil: break
        case .array(let a)?:
            for m in a {
                guard case .object(let mask) = m else { return .failure(Problem("each of \"masks\" must be a JSON object")) }
                masks.append(mask)
            }
        default: return .failure(Problem("\"masks\" must be an array of JSON objects"))
        }
        var hashes: [String] = []
        switch o["maskHashes"] {
        case nil: break
        case .array(let a)?:
            for h in a {
                switch h {
                case .int(let n): hashes.append(String(n))
                case .double(let d) where d.rounded() == d && d >= 0 && d <= Double(UInt32.max): hashes.append(String(UInt32(d)))
                default: return .failure(Problem("each of \"maskHashes\" must be an integer"))
                }
            }
        default: return .failure(Problem("\"maskHashes\" must be an array of integers"))
        }
        func time(_ key: String) -> Result<String?, Problem> {
            switch o[key] {
            case nil: return .success(nil)
            case .string(let t)?: return .success(t)
            case .int(let n)?: return .success(String(n))
            case .double(let d)?: return .success(String(d))
            default: return .failure(Problem("\"\(key)\" must be ISO 8601 text or milliseconds since 1970"))
            }
        }
        let from: String?
        let to: String?
        switch (time("from"), time("to")) {
        case (.success(let f), .success(let t)): (from, to) = (f, t)
        case (.failure(let p), _), (_, .failure(let p)): return .failure(p)
        }
        return make(identity: identity, masks: masks, maskHashes: hashes, from: from, to: to)
    }

    /// A query string's parameters, in order, decoded as forms encode them (`+` a space, then `%XX`); nil
    /// when one is not percent-encoded UTF-8.
    ///
    /// - Parameter query: the query as sent, without its `?`.
    /// - Returns: the names and values.
    public static func parameters(query: String) -> [(String, String)]? {
        var out: [(String, String)] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ s: Substring) -> String? { s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decoded(parts[0]), let value = parts.count > 1 ? decoded(parts[1]) : "" else { return nil }
            out.append((name, value))
        }
        return out
    }

    /// The request a path and query make (`/v1/history/ID?mask=JSON&maskHash=N&from=T&to=T`, each of mask
    /// and maskHash repeatable); the message saying what is wrong otherwise.
    ///
    /// - Parameters:
    ///   - identity: the path's identity, decoded.
    ///   - query: the query's parameters, decoded, in order.
    /// - Returns: the request, or why it is not one.
    public static func parse(identity: String, query: [(String, String)]) -> Result<PersonalHistoryRequest, Problem> {
        var masks: [ValueObject] = []
        var hashes: [String] = []
        var from: String?
        var to: String?
        for (key, value) in query {
            switch key {
            case "mask":
                guard case .object(let o)? = try? JSONReader.value(value) else {
                    return .failure(Problem("mask takes a JSON object (e.g. {\"visit.page\":\"home\"}), not '\(value.prefix(200))'"))
                }
                masks.append(o)
            case "maskHash": hashes.append(value)
            case "from": from = value
            case "to": to = value
            default: return .failure(Problem("unknown parameter '\(key.prefix(100))' (mask, maskHash, from, to)"))
            }
        }
        return make(identity: identity, masks: masks, maskHashes: hashes, from: from, to: to)
    }

    static func make(identity: String, masks: [ValueObject], maskHashes: [String], from: String?, to: String?) -> Result<
        PersonalHistoryRequest, Problem
    > {
        guard !identity.isEmpty, identity.utf8.count <= maxIdentityBytes else {
            return .failure(Problem("the identity must be 1 to \(maxIdentityBytes) bytes"))
        }
        var hashes = Set(masks.map(HistoryErasure.maskHash))
        for h in maskHashes {
            guard let n = UInt32(h) else {
                return .failure(Problem("a mask hash is a number from 0 to \(UInt32.max), not '\(h.prefix(100))'"))
            }
            hashes.insert(n)
        }
        var window: [Double?] = []
        for (name, text) in [("from", from), ("to", to)] {
            guard let text else {
                window.append(nil)
                continue
            }
            guard let ms = HistoryErasure.milliseconds(text) else {
                return .failure(
                    Problem("\(name) takes ISO 8601 (2026-12-01T10:00:00Z) or milliseconds since 1970, not '\(text.prefix(100))'"))
            }
            window.append(ms)
        }
        return .success(
            PersonalHistoryRequest(
                identity: identity, hashes: masks.isEmpty && maskHashes.isEmpty ? nil : hashes, from: window[0], to: window[1]))
    }

    /// Why a request is not one (the 400's message).
    public struct Problem: Error, Sendable, Equatable {
        /// What is wrong.
        public var message: String

        init(_ message: String) { self.message = message }
    }
}

extension EnrichmentService {
    /// Whether the history store answers for one person (every store RuleKit ships does).
    public var answersForPersons: Bool { personal != nil }

    /// Every record the store keeps for `identity`, oldest first.
    ///
    /// - Parameter identity: whose.
    /// - Returns: the records (none for an identity the store does not know).
    /// - Throws: `ServeError.historyUnavailable` when the store is down or does not answer in time.
    public func exportHistory(identity: String) async throws(ServeError) -> [HistoryRecord] {
        try await onStore { try await $0.export(identity: identity) }
    }

    /// Erases what `request` names, now: the records kept, and (by the tombstone it leaves) any it covers
    /// that arrive later — this server's spool, another server's block, a client's retried batch.
    ///
    /// - Parameter request: whose records, which.
    /// - Returns: how many records were erased.
    /// - Throws: `ServeError.historyUnavailable` when the store is down or does not answer in time.
    public func eraseHistory(_ request: PersonalHistoryRequest) async throws(ServeError) -> Int {
        let erasure = HistoryErasure(
            identity: request.identity, hashes: request.hashes, from: request.from, to: request.to,
            at: Date().timeIntervalSince1970 * 1000)
        let gone = try await onStore { try await $0.erase(erasure) }
        // A whole person's erasure also takes the postbacks still queued for them.
        if request.hashes == nil, request.from == nil, request.to == nil, let postbacks {
            do { try postbacks.purge(identity: request.identity) } catch {
                throw ServeError.historyUnavailable("the postback queue could not be purged: \(error)")
            }
        }
        return gone
    }

    /// `body` on the store, unless its breaker is open; bounded by ten history time-outs (at least 5 s).
    private func onStore<T: Sendable>(_ body: @escaping @Sendable (any HistoryExporting) async throws -> T) async throws(ServeError) -> T {
        guard let personal else { throw ServeError.historyUnavailable("this history store keeps nothing per person") }
        guard !history.status.open else { throw ServeError.historyUnavailable("the history store is unreachable") }
        let limit = max(options.historyTimeout * 10, .seconds(5))
        do {
            return try await withTimeout(limit) { try await body(personal) }
        } catch is HistoryTimeout {
            throw ServeError.historyUnavailable("the history store did not answer within \(limit)")
        } catch {
            throw ServeError.historyUnavailable("the history store failed: \(error)")
        }
    }
}
