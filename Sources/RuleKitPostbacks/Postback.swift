// A postback: what a `pb` or `pii` consequence asks to send (Launch's Signal extension), made once from the
// rules consequence event, with the key that lets a receiver drop repeats (`Idempotency-Key`).
internal import Crypto
internal import Foundation
public import RuleKitCore

/// One hit to send.
public struct Postback: Sendable, Equatable {
    /// A postback (`pb`, http or https) or personal data (`pii`, https only).
    public enum Kind: String, Sendable {
        case pb, pii
    }

    /// The same for every resend of the triggering event: its id, the consequence and its place among
    /// that event's postbacks (never the consequence event's fresh id).
    public var key: String
    /// Which consequence type made it.
    public var kind: Kind
    /// The URL, tokens expanded by the engine.
    public var url: String {
        didSet { receiver = Self.receiver(of: URLComponents(string: url), url) }
    }
    /// The body (POST); nil or empty: GET.
    public var body: String?
    /// The body's content type.
    public var contentType: String
    /// Seconds the receiver has to answer.
    public var timeout: Double
    /// The identity the hit was made for ("" for a device's one history): an erasure purges its hits.
    public var identity: String

    /// The request's method: GET without a body, POST with one (as the reference).
    public var method: String { (body ?? "").isEmpty ? "GET" : "POST" }

    /// Where it goes, as `host:port`: hits to one receiver are sent in order, one at a time. Kept with the
    /// URL (read a few times a hit: its line, its headers, its answer).
    public private(set) var receiver: String

    /// The receiver of `url`, parsed as `u` (its text when it has no host).
    static func receiver(of u: URLComponents?, _ url: String) -> String {
        guard let u, let host = u.host else { return url }
        return "\(host.lowercased()):\(u.port ?? (u.scheme?.lowercased() == "https" ? 443 : 80))"
    }

    /// A hit as given.
    ///
    /// - Parameters:
    ///   - key: the idempotency key.
    ///   - kind: `pb` or `pii`.
    ///   - url: where to.
    ///   - body: what (nil: GET).
    ///   - contentType: the body's type.
    ///   - timeout: seconds to answer.
    ///   - identity: whose.
    public init(
        key: String, kind: Kind, url: String, body: String?, contentType: String = "application/json", timeout: Double = 2,
        identity: String = ""
    ) {
        self.init(
            key: key, kind: kind, url: url, parsed: URLComponents(string: url), body: body, contentType: contentType, timeout: timeout,
            identity: identity)
    }

    /// A hit whose URL was parsed already (`parsed`): a hit made from a consequence parses it once, for its
    /// receiver and its refusal (Foundation's parse was the dearest step of making a hit).
    init(
        key: String, kind: Kind, url: String, parsed: URLComponents?, body: String?, contentType: String, timeout: Double, identity: String
    ) {
        self.key = key
        self.kind = kind
        self.url = url
        self.receiver = Self.receiver(of: parsed, url)
        self.body = body
        self.contentType = contentType
        self.timeout = timeout
        self.identity = identity
    }

    /// Why a consequence makes no hit.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, for the log.
        public var description: String
    }

    /// The hit a rules consequence event asks for: nil when it is not a `pb`/`pii` consequence; a refusal
    /// when it is one that cannot be sent (no `templateurl`, a URL that is not http(s), `pii` not over https).
    ///
    /// - Parameters:
    ///   - event: a delivered event.
    ///   - ordinal: the consequence's place among the postbacks its triggering event made (from 0).
    ///   - identity: whose event it is.
    /// - Returns: the hit, a refusal, or nil.
    public static func from(consequence event: Event, ordinal: Int, identity: String = "") -> Result<Postback, Refusal>? {
        guard case .object(let c)? = event.data?["triggeredconsequence"], case .string(let type)? = c["type"],
            let kind = Kind(rawValue: type)
        else { return nil }
        let detail = c["detail"]?.objectValue ?? [:]
        let id = c["id"]?.stringValue ?? ""
        guard case .string(let url)? = detail["templateurl"], !url.isEmpty else {
            return .failure(Refusal(description: "a \(type) consequence (\(id)) without a templateurl"))
        }
        var timeout = 2.0
        switch detail["timeout"] {
        case .int(let n)? where n > 0: timeout = Double(n)
        case .double(let d)? where d > 0 && d.isFinite: timeout = d
        default: break
        }
        /// A text body as written; a JSON body (a rule written in YAML) as its JSON text.
        func body(_ v: Value?) -> String? {
            switch v {
            case nil, .null?: return nil
            case .string(let s)?: return s
            case let v?: return JSONWriter.string(v)
            }
        }
        let cause = (event.parentID ?? event.id).uuidString
        let digest = SHA256.hash(data: Array("\(cause)|\(id)|\(ordinal)".utf8))
        let key = Hex.lowercase(digest.prefix(16))
        let parsed = URLComponents(string: url)
        let hit = Postback(
            key: key, kind: kind, url: url, parsed: parsed, body: body(detail["templatebody"]),
            contentType: detail["contenttype"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? "application/json", timeout: timeout,
            identity: identity)
        if let refusal = hit.refusal(parsed, consequence: id) { return .failure(refusal) }
        return .success(hit)
    }

    /// Why this hit may not be sent, or nil: a URL that is not http(s) with a host, or `pii` not over https.
    /// Asked of a hit as its consequence made it, and again after the outbound rules have seen it.
    ///
    /// - Parameter id: the consequence's id, for the message.
    /// - Returns: the refusal, or nil.
    public func refusal(consequence id: String) -> Refusal? {
        refusal(URLComponents(string: url), consequence: id)
    }

    /// `refusal(consequence:)` of the URL parsed as `parts`.
    func refusal(_ parts: URLComponents?, consequence id: String) -> Refusal? {
        guard let parts, let scheme = parts.scheme?.lowercased(), scheme == "https" || scheme == "http",
            parts.host?.isEmpty == false
        else {
            return Refusal(description: "a \(kind.rawValue) consequence (\(id)) whose templateurl is not an http(s) URL")
        }
        if kind == .pii, scheme != "https" {
            return Refusal(description: "a pii consequence (\(id)) to a URL that is not https: not sent")
        }
        return nil
    }
}

/// The postbacks among a block of delivered events, with what was refused and the URLs to open.
public struct PostbackHits: Sendable {
    /// The hits, in the order their consequences were delivered.
    public var hits: [Postback] = []
    /// Consequences that make no hit, each with why (for the log).
    public var refused: [Postback.Refusal] = []
    /// The URLs `url` consequences ask the host to open.
    public var urls: [String] = []
    /// The type of the events that carry consequences.
    static let consequenceType = "com.adobe.eventType.rulesEngine"

    /// Reads `events` (a block as delivered: each trigger with the consequences it caused): each `pb`/`pii`
    /// consequence numbered among its triggering event's (the key's ordinal), each hit made for the identity
    /// `identity` gives its consequence event.
    ///
    /// - Parameters:
    ///   - events: delivered events.
    ///   - identity: whose a consequence event is ("" when history is not per identity).
    public init(_ events: [Event], identity: (Event) -> String = { _ in "" }) {
        var ordinals = PostbackOrdinals()
        for e in events {
            // The type first: reading any other event's data would materialize it from its tape (serve's
            // events keep theirs as read), which cost serve a sixth of its CPU.
            guard e.type == Self.consequenceType, case .object(let c)? = e.data?["triggeredconsequence"],
                case .string(let type)? = c["type"]
            else { continue }
            if type == "url" {
                urls.append(c["detail"]?.objectValue?["url"]?.stringValue ?? "")
                continue
            }
            guard Postback.Kind(rawValue: type) != nil else { continue }
            switch Postback.from(consequence: e, ordinal: ordinals.next(e), identity: identity(e)) {
            case .success(let hit)?: hits.append(hit)
            case .failure(let refusal)?: refused.append(refusal)
            case nil: break
            }
        }
    }
}

/// The place of each `pb`/`pii` consequence among the ones its triggering event made with the same id (the
/// key's ordinal), counted per trigger and consequence. A host that hears consequences one by one keeps two
/// generations of `capacity` slots: a trigger's consequences are delivered together, so a slot is never
/// needed again once two generations have passed it.
public struct PostbackOrdinals: Sendable {
    private var current: [String: Int] = [:]
    private var previous: [String: Int] = [:]
    /// Slots in a generation.
    public let capacity: Int

    /// Counting from zero, `capacity` slots a generation.
    ///
    /// - Parameter capacity: slots kept per generation (at least 1).
    public init(capacity: Int = 4_096) {
        self.capacity = max(1, capacity)
    }

    /// The ordinal of the consequence event `event` (a rules consequence event): 0 for the first of its
    /// trigger and consequence id, then 1, 2, ...
    ///
    /// - Parameter event: the consequence event.
    /// - Returns: its ordinal.
    public mutating func next(_ event: Event) -> Int {
        let id: String
        if case .object(let c)? = event.data?["triggeredconsequence"], case .string(let s)? = c["id"] { id = s } else { id = "" }
        let slot = "\((event.parentID ?? event.id).uuidString)|\(id)"
        let n = current[slot] ?? previous[slot] ?? 0
        if current.count >= capacity, current[slot] == nil {
            previous = current
            current = [:]
        }
        current[slot] = n + 1
        return n
    }
}
