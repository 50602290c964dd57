// The routes for one person's history: export and erase by identity, in the path (`/v1/history/{identity}`)
// or, to keep it out of proxies' access logs, in a JSON body (`POST /v1/history/export|delete`). The gate
// lets through only an admin token (`--admin-token-file`); each call leaves one audit line naming the
// token by its line (never its value) and the identity by its SHA-256 (never in clear).
internal import Foundation
internal import Hummingbird
internal import HummingbirdAuth
internal import Logging
internal import NIOCore
internal import RuleKitCore
internal import RuleKitHistory

enum HistoryRoutes {
    static let exportPath = "/v1/history/export"
    static let deletePath = "/v1/history/delete"
    static let identityPath = "/v1/history/{identity}"
    /// The routes' paths and methods (`{identity}` is any one segment): the gate's table, and the
    /// document's (a test holds them equal).
    static let table: [String: [HTTPRequest.Method]] = [exportPath: [.post], deletePath: [.post], identityPath: [.get, .delete]]

    /// The methods `path` takes when it is one of the history routes; nil when it is not one.
    static func methods(_ path: String) -> [HTTPRequest.Method]? {
        if let exact = table[path] { return exact }
        let prefix = "/v1/history/"
        guard path.hasPrefix(prefix), path.count > prefix.count, !path.dropFirst(prefix.count).contains("/") else { return nil }
        return table[identityPath]
    }

    static func add(_ router: Router<BasicRequestContext>, _ service: EnrichmentService, admins: AuthTokens?) {
        let audit = AdminAudit(admins: admins)
        router.get(RouterPath(identityPath)) { request, context -> Response in
            guard let identity = context.parameters.get("identity")?.removingPercentEncoding else {
                return ServeApp.problem(.badRequest, "the identity is not percent-encoded UTF-8")
            }
            guard request.uri.queryParameters.isEmpty else {
                return ServeApp.problem(.badRequest, "an export takes no parameter (masks and windows are for deletes)")
            }
            switch PersonalHistoryRequest.parse(identity: identity, query: []) {
            case .success(let r): return await export(r, service, audit, request)
            case .failure(let p): return ServeApp.problem(.badRequest, p.message)
            }
        }
        router.delete(RouterPath(identityPath)) { request, context -> Response in
            guard let identity = context.parameters.get("identity")?.removingPercentEncoding else {
                return ServeApp.problem(.badRequest, "the identity is not percent-encoded UTF-8")
            }
            guard let query = PersonalHistoryRequest.parameters(query: request.uri.query ?? "") else {
                return ServeApp.problem(.badRequest, "the query is not percent-encoded UTF-8")
            }
            switch PersonalHistoryRequest.parse(identity: identity, query: query) {
            case .success(let r): return await erase(r, service, audit, request)
            case .failure(let p): return ServeApp.problem(.badRequest, p.message)
            }
        }
        router.post(RouterPath(exportPath)) { request, _ -> Response in
            switch await body(request, service) {
            case .success(let r):
                guard r.hashes == nil, r.from == nil, r.to == nil else {
                    return ServeApp.problem(.badRequest, "an export takes only \"identity\" (masks and windows are for deletes)")
                }
                return await export(r, service, audit, request)
            case .failure(let refused): return refused.response
            }
        }
        router.post(RouterPath(deletePath)) { request, _ -> Response in
            switch await body(request, service) {
            case .success(let r): return await erase(r, service, audit, request)
            case .failure(let refused): return refused.response
            }
        }
    }

    /// A request refused, as the response that says so.
    struct Refused: Error {
        let response: Response
    }

    /// The JSON body's request (at most 64 KiB: it names one person).
    static func body(_ request: Request, _ service: EnrichmentService) async -> Result<PersonalHistoryRequest, Refused> {
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: 64 << 10) } catch {
            return .failure(Refused(response: ServeApp.problem(.contentTooLarge, "the body is over 64 KiB")))
        }
        let value: Value
        do { value = try JSONReader.read(Array(buffer.readableBytesView), limits: service.options.limits.reader).value } catch {
            return .failure(
                Refused(response: ServeApp.problem(.badRequest, "the body is not JSON: \(error.diagnostics.first?.message ?? "")")))
        }
        return PersonalHistoryRequest.parse(body: value).mapError { Refused(response: ServeApp.problem(.badRequest, $0.message)) }
    }

    static func export(_ r: PersonalHistoryRequest, _ service: EnrichmentService, _ audit: AdminAudit, _ request: Request) async -> Response
    {
        let records: [HistoryRecord]
        do { records = try await service.exportHistory(identity: r.identity) } catch {
            audit.log("history export failed", request, r, ["error": "\(error)"])
            return unavailable(error)
        }
        audit.log("history export", request, r, ["records": "\(records.count)"])
        var lines: [UInt8] = []
        for record in records {
            lines.append(contentsOf: JSONWriter.string(record.exported).utf8)
            lines.append(0x0A)
        }
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: .init(byteBuffer: ByteBuffer(bytes: lines)))
    }

    static func erase(_ r: PersonalHistoryRequest, _ service: EnrichmentService, _ audit: AdminAudit, _ request: Request) async -> Response
    {
        let gone: Int
        do { gone = try await service.eraseHistory(r) } catch {
            audit.log("history delete failed; nothing erased", request, r, ["error": "\(error)"])
            return unavailable(error)
        }
        audit.log("history delete", request, r, ["deleted": "\(gone)"])
        return ServeApp.json(.ok, ["deleted": .int(Int64(gone))])
    }

    static func unavailable(_ error: ServeError) -> Response {
        let why: String
        if case .historyUnavailable(let reason) = error { why = reason } else { why = "the service is shutting down" }
        var response = ServeApp.problem(.serviceUnavailable, "\(why); nothing was changed, retry later")
        response.headers[.retryAfter] = "5"
        return response
    }
}

extension AdminAudit {
    /// One audit line for a person's history: the identity by its SHA-256 (never in clear), and the masks'
    /// hashes and window asked.
    func log(_ what: String, _ request: Request, _ r: PersonalHistoryRequest, _ counts: Logger.Metadata) {
        var metadata = counts
        metadata["identity.sha256"] = "\(HistoryErasure.digest(r.identity))"
        if let h = r.hashes { metadata["maskHashes"] = "\(h.sorted().map(String.init).joined(separator: ","))" }
        if let f = r.from { metadata["from"] = "\(f)" }
        if let t = r.to { metadata["to"] = "\(t)" }
        log(what, request, metadata)
    }
}
