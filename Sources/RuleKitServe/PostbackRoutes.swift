// The dead letters of a serving queue (`--postbacks DIR`), administered while the service runs: listed
// (without bodies), sent again, or removed. `rulekit postbacks` does the same on a queue no process holds;
// these routes are for the queue a live server holds. Admin token only, like the history routes; each call
// leaves one audit line naming the token by its line.
internal import Hummingbird
internal import NIOCore
internal import RuleKitCore
internal import RuleKitPostbacks

enum PostbackRoutes {
    static let deadPath = "/v1/postbacks/dead"
    static let retryPath = "/v1/postbacks/dead/retry"
    /// The routes' paths and methods: the gate's table, and the document's (a test holds them equal).
    static let table: [String: [HTTPRequest.Method]] = [deadPath: [.get, .delete], retryPath: [.post]]

    static func add(_ router: Router<BasicRequestContext>, _ service: EnrichmentService, admins: AuthTokens?) {
        let audit = AdminAudit(admins: admins)
        router.get(RouterPath(deadPath)) { request, _ -> Response in
            guard let queue = service.postbacks else { return off }
            let dead: [QueuedPostback]
            do { dead = try queue.deadLetters() } catch { return unreadable(error) }
            audit.log("postback dead letters listed", request, ["deadLetters": "\(dead.count)"])
            var lines: [UInt8] = []
            for d in dead {
                lines.append(contentsOf: JSONWriter.string(.object(d.summary)).utf8)
                lines.append(0x0A)
            }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: .init(byteBuffer: ByteBuffer(bytes: lines)))
        }
        router.post(RouterPath(retryPath)) { request, _ -> Response in
            counted("retried", service, audit, request) { try $0.retryDeadLetters() }
        }
        router.delete(RouterPath(deadPath)) { request, _ -> Response in
            counted("purged", service, audit, request) { try $0.purgeDeadLetters() }
        }
    }

    /// Runs a change of the dead letters and answers `{"<done>": N}`, with its audit line.
    static func counted(
        _ done: String, _ service: EnrichmentService, _ audit: AdminAudit, _ request: Request, _ change: (PostbackQueue) throws -> Int
    ) -> Response {
        guard let queue = service.postbacks else { return off }
        let n: Int
        do { n = try change(queue) } catch { return unreadable(error) }
        audit.log("postback dead letters \(done)", request, [done: "\(n)"])
        return ServeApp.json(.ok, [done: .int(Int64(n))])
    }

    /// The answer when this service sends no postbacks.
    static var off: Response {
        ServeApp.problem(.notFound, "this service sends no postbacks (start serve with --postbacks DIR)")
    }

    /// The queue's file failed; nothing was changed.
    static func unreadable(_ error: any Error) -> Response {
        var response = ServeApp.problem(
            .serviceUnavailable, "the postback queue cannot be used: \(error); nothing was changed, retry later")
        response.headers[.retryAfter] = "5"
        return response
    }
}
