// `rulekit serve` over HTTP (Hummingbird 2): the routes, their errors and limits, and the service group
// that runs the server, the rules watcher and the history together and shuts them down in order.
internal import Foundation
internal import Hummingbird
internal import HummingbirdAuth
internal import HummingbirdCore
internal import HummingbirdTLS
internal import Logging
internal import NIOCore
internal import NIOSSL
internal import RuleKitCore
internal import RuleKitExtension
internal import ServiceLifecycle
internal import UnixSignals

/// Runs the enrichment service until SIGTERM or SIGINT.
public enum ServeApp {
    /// Builds the service from `options`, listens, and serves until a graceful shutdown (SIGTERM or
    /// SIGINT): the server stops accepting, batches in flight finish, history is flushed. `listening` is
    /// told the address once the server accepts connections.
    public static func run(_ options: ServeOptions, listening: @escaping @Sendable (String) -> Void) async throws {
        let tokens = try options.authTokenFile.map { file throws(DiagnosticError) in try AuthTokens(file: file) }
        let admins = try options.adminTokenFile.map { file throws(DiagnosticError) in try AuthTokens(file: file) }
        // A certificate or key that cannot be used is an error before anything starts.
        let tls = try options.tls.map { pair throws(DiagnosticError) in try tlsConfiguration(pair.certificate, pair.key) }
        let service = try await EnrichmentService.start(options)
        let logger = Logger(label: "rulekit.serve")
        // The database client runs from here until the history is flushed at shutdown; the migration and
        // the replay of a spool left by an earlier run happen before the server listens (bounded by the
        // history time-out: a database that is down leaves the breaker open, and the server starts).
        let client = service.historyClient.map { c in
            Task {
                do { try await c.run() } catch { logger.error("the history store's client stopped", metadata: ["error": "\(error)"]) }
            }
        }
        await service.history.start()
        let router = Router()
        router.add(middleware: ServeGate(tokens: tokens, admins: admins))
        routes(router, service)
        HistoryRoutes.add(router, service, admins: admins)
        PostbackRoutes.add(router, service, admins: admins)
        let idle = options.idleTimeout.components
        let http1 = HTTPServerBuilder.http1(
            configuration: .init(idleTimeout: .nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000)))
        let app = Application(
            router: router,
            server: try tls.map { try HTTPServerBuilder.tls(http1, tlsConfiguration: $0) } ?? http1,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "rulekit"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                listening("\(tls == nil ? "http" : "https")://\(options.host):\(port)")
            },
            logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        services.append(.init(service: HistoryService(service: service, client: client)))
        if let queue = service.postbacks, let transport = options.postbackTransport {
            services.append(
                .init(service: PostbackService(service: service, queue: queue, transport: transport, policy: options.postbackPolicy)))
        }
        services.append(.init(service: RulesWatcher(service: service, tokens: [tokens, admins].compactMap { $0 })))
        services.append(.init(service: app))
        // Shut down in reverse order: first new batches are turned away and those in flight finish, then
        // the server stops, then the watcher, then history is flushed.
        services.append(.init(service: StopFirst(service: service)))
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do { try await group.run() } catch let e as IOError where e.errnoCode == EADDRINUSE || e.errnoCode == EACCES {
            // A port in use (or one this user may not bind) is the operator's to fix: said as such, exit 2.
            let why = e.errnoCode == EADDRINUSE ? "the address is already in use" : "permission denied"
            throw DiagnosticError(
                .error(.unreadable, "cannot listen on \(options.host):\(options.port): \(why) (choose another with --listen HOST:PORT)"))
        }
    }

    /// The server's TLS configuration from a PEM certificate chain and private key; any problem with either
    /// is an error naming the file.
    static func tlsConfiguration(_ certificate: String, _ key: String) throws(DiagnosticError) -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificate) } catch {
            throw DiagnosticError(.error(.unreadable, "cannot use '\(certificate)' as a PEM certificate chain: \(error)"))
        }
        guard !chain.isEmpty else { throw DiagnosticError(.error(.unreadable, "no certificate in '\(certificate)'")) }
        let privateKey: NIOSSLPrivateKey
        do { privateKey = try NIOSSLPrivateKey(file: key, format: .pem) } catch {
            throw DiagnosticError(.error(.unreadable, "cannot use '\(key)' as a PEM private key: \(error)"))
        }
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
    }

    /// The routes of the service.
    static func routes(_ router: Router<BasicRequestContext>, _ service: EnrichmentService) {
        let limits = service.options.limits
        router.post("/v1/events") { request, _ -> Response in
            let start = ContinuousClock.now
            service.metrics.requests.increment()
            defer {
                let d = ContinuousClock.now - start
                service.metrics.latency.recordNanoseconds(d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000)
            }
            let body: BatchBody
            switch await read(request, limits: limits, envelope: true) {
            case .body(let b): body = b
            case .rejected(let r): return r
            }
            guard !body.documents.isEmpty else { return problem(.badRequest, "the body holds no event") }
            var events: [Event] = []
            events.reserveCapacity(body.documents.count)
            for (i, (line, v)) in body.documents.enumerated() {
                let tape = i < body.dataTapes.count ? body.dataTapes[i] : nil
                if let p = EventShape.problem(v, dataInTape: tape != nil) {
                    return eventProblem(p, index: i, line: line)
                }
                guard case .object(let o) = v else { return problem(.badRequest, "an event must be a JSON object", line: line) }
                events.append(
                    EventJSON.event(
                        o, dataText: i < body.dataTexts.count ? body.dataTexts[i] : nil,
                        document: i < body.dataTapes.count ? body.dataTapes[i] : nil))
            }
            do {
                let out = try await service.enrich(events, states: body.states, xdmStates: body.xdmStates)
                var lines: [UInt8] = []
                lines.reserveCapacity(out.count * 1024)
                for e in out { EventJSON.writeLine(e, to: &lines) }
                return Response(
                    status: .ok, headers: [.contentType: "application/x-ndjson"], body: .init(byteBuffer: ByteBuffer(bytes: lines)))
            } catch ServeError.overloaded(let seconds) {
                var r = problem(.tooManyRequests, "the queue is full; retry later")
                r.headers[.retryAfter] = "\(seconds)"
                return r
            } catch ServeError.postbacksFull {
                var r = problem(.serviceUnavailable, "the postback queue is full; retry later (nothing of the batch is lost)")
                r.headers[.retryAfter] = "5"
                return r
            } catch ServeError.historyUnavailable(let reason) {
                var r = problem(.serviceUnavailable, "the batch's history could not be kept (\(reason)); retry later")
                r.headers[.retryAfter] = "1"
                return r
            } catch {
                return problem(.serviceUnavailable, "the service is shutting down")
            }
        }
        router.post("/v1/xdm/validate") { request, _ -> Response in
            let body: BatchBody
            switch await read(request, limits: limits, envelope: false) {
            case .body(let b): body = b
            case .rejected(let r): return r
            }
            guard !body.documents.isEmpty else { return problem(.badRequest, "the body holds no payload") }
            guard let verdicts = service.validate(body.documents) else {
                return problem(.notFound, "no XDM ExperienceEvent schema is loaded (start with --schemas)")
            }
            let text = verdicts.map { JSONWriter.string($0) + "\n" }.joined()
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        router.get("/v1/rules") { _, _ -> Response in
            let s = service.rulesStatus
            let iso = ISO8601DateFormatter()
            let o: Value = [
                "count": .int(Int64(s.count)), "contentHash": .string(s.contentHash), "loadedAt": .string(iso.string(from: s.loadedAt)),
                "lastAttempt": [
                    "at": .string(iso.string(from: s.attemptedAt)), "loaded": .bool(s.lastAttemptLoaded),
                    "diagnostics": .array(
                        s.diagnostics.map { d in
                            var x: ValueObject = [
                                "severity": .string(d.severity.rawValue), "code": .string(d.code.rawValue), "message": .string(d.message),
                            ]
                            if let l = d.location { x["location"] = .string(l.description) }
                            return .object(x)
                        }),
                ],
                "sources": .array(s.versions.map { versionValue($0, iso) }),
            ]
            return json(.ok, o)
        }
        router.get("/openapi.yaml") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/yaml"],
                body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.yaml + "\n")))
        }
        router.get("/healthz") { _, _ in "ok\n" }
        router.get("/readyz") { _, _ -> Response in
            // Ready while batches are taken; the history breaker and spool are shown, not judged: with the
            // breaker open, batches are still answered (history questions with the error value).
            let h = service.historyStatus
            let history: Value = ["breaker": .string(h.open ? "open" : "closed"), "spooled": .int(Int64(h.spooled))]
            let s = service.rulesStatus
            let iso = ISO8601DateFormatter()
            let rules: Value = [
                "count": .int(Int64(s.count)), "contentHash": .string(s.contentHash),
                "sources": .array(s.versions.map { versionValue($0, iso) }),
            ]
            var o: ValueObject = ["ready": .bool(service.isReady), "history": history, "rules": rules]
            if let p = service.postbackFigures {
                o["postbacks"] = ["depth": .int(Int64(p.depth)), "deadLetters": .int(Int64(p.dead))]
            }
            if !service.isReady { o["error"] = "not ready" }
            return json(service.isReady ? .ok : .serviceUnavailable, .object(o))
        }
        router.get("/metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: service.metrics.render(
                            history: service.historyStatus, versions: service.remote.versions, postbacks: service.postbackFigures))))
        }
    }

    /// A rules URL's version in force, as `/v1/rules` and `/readyz` show it.
    static func versionValue(_ v: RemoteVersion, _ iso: ISO8601DateFormatter) -> Value {
        var o: ValueObject = [
            "url": .string(v.url), "bodyHash": .string(v.bodyHash), "fetchedAt": .string(iso.string(from: v.fetchedAt)),
            "fromCache": .bool(v.fromCache),
        ]
        if let e = v.etag { o["etag"] = .string(e) }
        if let m = v.lastModified { o["lastModified"] = .string(m) }
        return .object(o)
    }

    /// A request's body, or the response that refuses it.
    enum Read {
        case body(BatchBody)
        case rejected(Response)
    }

    /// The body of a request, parsed within the limits; a 4xx response when it is not acceptable.
    static func read(_ request: Request, limits: ServeLimits, envelope: Bool) async -> Read {
        var request = request
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limits.maxBodyBytes {
            return .rejected(problem(.contentTooLarge, "the body is over \(limits.maxBodyBytes) bytes"))
        }
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: limits.maxBodyBytes) } catch {
            return .rejected(problem(.contentTooLarge, "the body is over \(limits.maxBodyBytes) bytes"))
        }
        do {
            return .body(
                try BatchBody.parse(
                    Array(buffer.readableBytesView), maxDocuments: limits.maxDocuments, limits: limits.reader, envelope: envelope))
        } catch {
            let status: HTTPResponse.Status = error.message.hasPrefix("more than") ? .contentTooLarge : .badRequest
            return .rejected(json(status, error.value))
        }
    }

    /// The 400 for an event that is not one: which event (its place in the batch and its line) and which
    /// member.
    static func eventProblem(_ p: EventShape.Problem, index: Int, line: Int) -> Response {
        let at = p.pointer.isEmpty ? "" : " at \(p.pointer)"
        return json(
            .badRequest,
            [
                "error": .string("event \(index) (line \(line))\(at): \(p.message)"), "index": .int(Int64(index)),
                "line": .int(Int64(line)), "pointer": .string(p.pointer),
            ])
    }

    static func problem(_ status: HTTPResponse.Status, _ message: String, line: Int? = nil) -> Response {
        var o: ValueObject = ["error": .string(message)]
        if let line { o["line"] = .int(Int64(line)) }
        return json(status, .object(o))
    }

    static func json(_ status: HTTPResponse.Status, _ v: Value) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: JSONWriter.string(v) + "\n")))
    }
}

/// Reloads the rules on SIGHUP and when a rules file changes; stops at the graceful shutdown.
struct RulesWatcher: Service {
    let service: EnrichmentService
    /// The bearer tokens (ingest, admin), read again on SIGHUP with the rules.
    let tokens: [AuthTokens]

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in await UnixSignalsSequence(trapping: .sighup) {
                        await service.reloadInBackground(reason: "SIGHUP")
                        await service.pollRemote()
                        for tokens in tokens {
                            let logger = Logger(label: "rulekit.serve")
                            if let e = tokens.reload() {
                                logger.error(
                                    "auth tokens not reloaded; the previous tokens stay: \(e.diagnostics.first?.message ?? "")",
                                    metadata: ["file": "\(tokens.file)"])
                            } else {
                                logger.info("auth tokens reloaded", metadata: ["file": "\(tokens.file)", "tokens": "\(tokens.count)"])
                            }
                        }
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: service.options.watchInterval)
                        await service.reloadIfChangedInBackground()
                    }
                }
                if let poll = service.options.rulesPoll, !service.remote.urls.isEmpty {
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: poll)
                            if !Task.isCancelled { await service.pollRemote() }
                        }
                    }
                }
            }
        }
    }
}

/// The history store's life while serving: the breaker's retries; at the graceful shutdown (after the
/// server stopped and the batches in flight finished), one last replay of the spool — what is left stays
/// in the spool file for the next start — and then the database client stops.
struct HistoryService: Service {
    let service: EnrichmentService
    /// The history store's client (`HistoryLocation.Opened.client`: a database's), started before the server
    /// listened.
    let client: Task<Void, Never>?

    func run() async throws {
        let history = service.history
        let logger = Logger(label: "rulekit.history")
        await cancelWhenGracefulShutdown { await history.maintain() }
        let left = await history.flush(within: .seconds(5))
        if left > 0 {
            logger.warning(
                "history records left in the spool at shutdown; they are replayed at the next start",
                metadata: ["records": "\(left)", "spool": "\(service.options.resolvedSpoolFile ?? "memory (lost)")"])
        }
        client?.cancel()
    }
}

/// At the graceful shutdown (before the server stops), turns new batches away and waits for those in
/// flight, so no accepted event is dropped.
struct StopFirst: Service {
    let service: EnrichmentService

    func run() async throws {
        try? await gracefulShutdown()
        service.beginStopping()
        await service.drain(timeout: .seconds(30))
    }
}

/// The service's routes and their methods.
enum ServeRoutes {
    static let methods: [String: [String]] = [
        "/v1/events": ["POST"], "/v1/xdm/validate": ["POST"], "/v1/rules": ["GET"], "/metrics": ["GET"], "/openapi.yaml": ["GET"],
        "/healthz": ["GET"], "/readyz": ["GET"],
    ]
    /// The routes anyone may ask, token or not: a load balancer's checks.
    static let open: Set<String> = ["/healthz", "/readyz"]
    /// `methods` as the router's method values, made once (not per request).
    static let table: [String: [HTTPRequest.Method]] = methods.mapValues { $0.compactMap(HTTPRequest.Method.init(rawValue:)) }
}

/// In front of every route: an unknown path is a 404 and a known path asked with another method a 405 with
/// `Allow`, both with the JSON error (the router's own answers have an empty body); with tokens, every
/// route but `/healthz` and `/readyz` needs `Authorization: Bearer TOKEN` (401 with `WWW-Authenticate`).
/// The admin routes (history, dead letters) need an admin token (`--admin-token-file`): an ingest token
/// gets 403 there, and without admin tokens they are off (404).
struct ServeGate<Context: RequestContext>: RouterMiddleware {
    let tokens: AuthTokens?
    let admins: AuthTokens?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if let methods = HistoryRoutes.methods(path) ?? PostbackRoutes.table[path] {
            if let refused = admit(request, path: path, methods: methods) { return refused }
            return try await next(request, context)
        }
        guard let methods = ServeRoutes.table[path] else {
            return ServeApp.problem(.notFound, "no route \(path) (see /openapi.yaml)")
        }
        guard methods.contains(request.method) else {
            var r = ServeApp.problem(
                .methodNotAllowed, "\(path) takes \(methods.map(\.rawValue).joined(separator: ", ")), not \(request.method)")
            r.headers[.allow] = methods.map(\.rawValue).joined(separator: ", ")
            return r
        }
        if let tokens, !ServeRoutes.open.contains(path), !tokens.accepts(token: request.headers.bearer?.token) {
            return Self.unauthorized("a bearer token is needed (Authorization: Bearer TOKEN)")
        }
        return try await next(request, context)
    }

    /// The answer refusing a request for an admin route; nil when it may go on.
    func admit(_ request: Request, path: String, methods: [HTTPRequest.Method]) -> Response? {
        guard methods.contains(request.method) else {
            var r = ServeApp.problem(
                .methodNotAllowed, "\(path) takes \(methods.map(\.rawValue).joined(separator: ", ")), not \(request.method)")
            r.headers[.allow] = methods.map(\.rawValue).joined(separator: ", ")
            return r
        }
        guard let admins else {
            return ServeApp.problem(
                .notFound, "the admin routes (history, dead letters) are off (start serve with --admin-token-file FILE)")
        }
        let bearer = request.headers.bearer?.token
        if admins.accepts(token: bearer) { return nil }
        if tokens?.accepts(token: bearer) == true {
            return ServeApp.problem(.forbidden, "this token may not use the admin routes (an admin token of --admin-token-file is needed)")
        }
        return Self.unauthorized("an admin bearer token is needed (Authorization: Bearer TOKEN, from --admin-token-file)")
    }

    static func unauthorized(_ message: String) -> Response {
        var r = ServeApp.problem(.unauthorized, message)
        r.headers[.wwwAuthenticate] = #"Bearer realm="rulekit""#
        return r
    }
}
