// A postback through the rules' outbound stage (rules that modify outbound messages), once, as it is
// queued: the hit is shown to the rules as an outbound message (`url`, `method`, `headers` with its
// `Content-Type`, `body` as JSON when it parses, else as the text it is) and made again from what they left.
internal import RuleKitCore
public import RuleKitPostbacks

extension RulesControl {
    /// `hit` as the outbound rules leave it: its URL, body and content type may change; its key, kind,
    /// time-out and identity stay. A body that is not JSON passes through as text: the rules may replace it
    /// with other text, nothing else.
    /// The caller asks the result's `refusal` again (a rule may have pointed it elsewhere).
    ///
    /// - Parameter hit: a postback about to be queued.
    /// - Returns: the postback to queue.
    public func outbound(_ hit: Postback) -> Postback {
        let parsed = hit.body.flatMap { try? JSONReader.value($0) }
        let body: Value? = parsed ?? hit.body.map(Value.string)
        let message = OutboundMessage(
            url: hit.url, method: hit.method, headers: ["Content-Type": .string(hit.contentType)], body: body)
        let out = outbound(message)
        guard out != message else { return hit }
        var result = hit
        result.url = out.url
        if case .string(let type)? = out.headers["Content-Type"], !type.isEmpty { result.contentType = type }
        switch out.body {
        case .string(let text)? where parsed == nil: result.body = text
        // A text body is not the rules' to turn into JSON: a rule written for JSON bodies (`mod` of a field)
        // would otherwise replace every text body with an object.
        case _ where parsed == nil && hit.body != nil: break
        case nil, .null?: result.body = nil
        case let value?: result.body = JSONWriter.string(value)
        }
        return result
    }

    /// The hits of `found` through the outbound stage, each once; a hit the rules pointed where it may not
    /// go (not http(s), `pii` not over https) moves to the refusals.
    ///
    /// - Parameter found: the postbacks of a block of events.
    /// - Returns: the same, as the outbound rules leave them.
    public func outbound(_ found: PostbackHits) -> PostbackHits {
        var out = found
        out.hits = []
        for made in found.hits {
            let hit = outbound(made)
            if let refusal = hit.refusal(consequence: "key \(hit.key), after the outbound rules") {
                out.refused.append(refusal)
            } else {
                out.hits.append(hit)
            }
        }
        return out
    }
}
