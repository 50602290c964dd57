// Postbacks over SwiftNIO's HTTP/1.1 codec: one kept-alive connection per receiver (host, port, scheme), the
// hit's method, body, content type and `Idempotency-Key`, its time-out over the exchange, no redirects
// followed (a receiver that moves answers 3xx, which is not delivered), the answer's body dropped as it
// comes. Why not AsyncHTTPClient's request path, as rules fetching uses: a profile of serve sending one
// postback per batch put 57 µs of a postback's 130 µs in its per-request machinery (a request bag, the
// pool's state machines, a task and a timer per request) — a postback is always one small request to a
// receiver already connected, so it gets a path that does only that. The same NIO, NIOSSL and trust
// roots (`--postbacks-ca`).
// Everything of a connection lives on the transport's one event loop: `send` from another thread hops to it
// once; the next hit of a line leaves from the answer's callback on that thread (PostbackDelivery).
internal import Foundation
internal import NIOCore
internal import NIOHTTP1
internal import NIOPosix
internal import NIOSSL
public import RuleKitPostbacks

/// A `PostbackTransport` over HTTP/1.1 with a kept-alive connection per receiver. Call `shutdown()` before
/// it is released.
public final class HTTPPostbackTransport: PostbackTransport {
    private let group: MultiThreadedEventLoopGroup
    private let loop: any EventLoop
    private let connections: NIOLoopBoundBox<PostbackConnections>
    private let receivers: PostbackReceivers

    /// A client trusting the system's roots, or `caFile`'s (PEM), sending each hit with its receiver's
    /// headers and signature (`receivers`; never logged).
    ///
    /// - Parameters:
    ///   - caFile: a PEM file of CA certificates, or nil.
    ///   - receivers: headers per receiver and the signing secret.
    ///   - idle: how long a receiver's connection stays open with nothing to send (default 30 s; looked at
    ///     when the last hit's time-out passes, so closed within `idle` and that time-out).
    /// - Throws: `HTTPRulesTransport.SetupError` for a CA file that cannot be read.
    public init(caFile: String? = nil, receivers: PostbackReceivers = PostbackReceivers(), idle: Duration = .seconds(30)) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            do { tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile)) } catch {
                throw HTTPRulesTransport.SetupError(description: "cannot read the CA certificates in '\(caFile)': \(error)")
            }
        }
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()
        // Made here, used only on the loop from now on.
        connections = NIOLoopBoundBox.makeBoxSendingValue(
            PostbackConnections(loop: loop, tls: tls, idle: .nanoseconds(max(1_000_000, Self.nanoseconds(idle)))), eventLoop: loop)
        self.receivers = receivers
    }

    static func nanoseconds(_ d: Duration) -> Int64 {
        let (s, atto) = d.components
        return s > 3_600 ? 3_600_000_000_000 : max(0, s) * 1_000_000_000 + atto / 1_000_000_000
    }

    /// Sends one hit; `done` is called on the transport's event loop.
    public func send(_ hit: Postback, done: @escaping @Sendable (PostbackAnswer) -> Void) {
        let request: PostbackRequest
        switch PostbackRequest.make(hit, headers: receivers.headers(for: hit)) {
        case .success(let r): request = r
        case .failure(let why):
            done(.transport(why.description))
            return
        }
        if loop.inEventLoop {
            connections.value.send(request, done: done)
        } else {
            let connections = self.connections
            loop.execute { connections.value.send(request, done: done) }
        }
    }

    /// Closes the connections and stops the event loop.
    public func shutdown() async {
        let connections = self.connections
        try? await loop.submit { connections.value.closeAll() }.get()
        try? await group.shutdownGracefully()
    }
}

/// A hit as written on the wire, and where to.
struct PostbackRequest: Sendable {
    var target: PostbackTarget
    var head: HTTPRequestHead
    var body: ByteBuffer?
    var timeout: TimeAmount

    /// Why a hit cannot be sent (its URL).
    struct Unsendable: Error, CustomStringConvertible {
        var description: String
    }

    static func make(_ hit: Postback, headers extra: [(name: String, value: String)]) -> Result<PostbackRequest, Unsendable> {
        guard let parts = URLComponents(string: hit.url), let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = parts.host, !host.isEmpty
        else { return .failure(Unsendable(description: "not an http(s) URL: \(hit.url)")) }
        guard parts.user == nil, parts.password == nil else {
            return .failure(Unsendable(description: "a postback URL with credentials is not sent: put them in the receivers' headers file"))
        }
        let tls = scheme == "https"
        let port = parts.port ?? (tls ? 443 : 80)
        guard (1...65_535).contains(port) else { return .failure(Unsendable(description: "port \(port) is out of range: \(hit.url)")) }
        // An IPv6 literal comes back without its brackets; the Host header wants them.
        let hostHeader = host.contains(":") ? "[\(host)]" : host
        var uri = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        if let q = parts.percentEncodedQuery { uri += "?" + q }
        var h = HTTPHeaders()
        h.reserveCapacity(6 + extra.count)
        h.add(name: "Host", value: (tls && port == 443) || (!tls && port == 80) ? hostHeader : "\(hostHeader):\(port)")
        h.add(name: "User-Agent", value: "rulekit")
        for (name, value) in extra { h.add(name: name, value: value) }
        h.add(name: "Idempotency-Key", value: hit.key)
        // The method is the hit's own (`Postback.method`: the reference's rule, written there once); a POST
        // carries the body, a GET none.
        let post = hit.method == "POST"
        var body: ByteBuffer?
        if post, let b = hit.body {
            h.add(name: "Content-Type", value: hit.contentType)
            h.add(name: "Content-Length", value: String(b.utf8.count))
            body = ByteBuffer(string: b)
        }
        let head = HTTPRequestHead(version: .http1_1, method: post ? .POST : .GET, uri: uri, headers: h)
        let ms = Int64(max(0.1, min(hit.timeout.isFinite ? hit.timeout : 2, 600)) * 1000)
        return .success(
            PostbackRequest(
                target: PostbackTarget(host: host.lowercased(), port: port, tls: tls), head: head, body: body, timeout: .milliseconds(ms)))
    }
}

/// A receiver's connection: where it goes and how.
struct PostbackTarget: Hashable, Sendable {
    var host: String
    var port: Int
    var tls: Bool
}

/// The connections of one transport, on its event loop.
final class PostbackConnections {
    let loop: any EventLoop
    let tls: TLSConfiguration
    /// How long a connection with nothing to send stays open.
    let idle: TimeAmount
    /// Built at the first https receiver (reading the system's roots is not free), or why it could not be.
    private var sslContext: Result<NIOSSLContext, any Error>?
    private var open: [PostbackTarget: PostbackConnection] = [:]

    init(loop: any EventLoop, tls: TLSConfiguration, idle: TimeAmount) {
        self.loop = loop
        self.tls = tls
        self.idle = idle
    }

    func send(_ request: PostbackRequest, done: @escaping @Sendable (PostbackAnswer) -> Void) {
        let c: PostbackConnection
        if let known = open[request.target] {
            c = known
        } else {
            c = PostbackConnection(target: request.target, owner: self)
            open[request.target] = c
        }
        c.send(Outgoing(request: request, deadline: .now() + request.timeout, done: done))
    }

    func context() throws -> NIOSSLContext {
        let made = sslContext ?? Result { try NIOSSLContext(configuration: tls) }
        sslContext = made
        return try made.get()
    }

    /// `c` closed for idleness: the next hit to its receiver opens a new one.
    func forget(_ c: PostbackConnection) {
        if open[c.target] === c { open[c.target] = nil }
    }

    func closeAll() {
        for c in open.values { c.close() }
        open = [:]
    }
}

/// A hit waiting to be written or answered.
struct Outgoing {
    var request: PostbackRequest
    var deadline: NIODeadline
    var done: @Sendable (PostbackAnswer) -> Void
}

/// One receiver's connection, opened at its first hit and kept open while the receiver keeps it and hits
/// come (closed after `idle` without one, and forgotten): hits are written in order and answered in order
/// (more than one in flight is HTTP/1.1 pipelining).
final class PostbackConnection {
    let target: PostbackTarget
    /// Kept strongly: `closeAll` (the transport's shutdown) and `forget` break the cycle.
    let owner: PostbackConnections
    private var channel: (any Channel)?
    private var handler: AnswerHandler?
    private var connecting = false
    /// Not written yet (the connection is being opened).
    private var unsent = CircularBuffer<Outgoing>()
    /// Written, in order, waiting for their answers.
    private var inFlight = CircularBuffer<Outgoing>()
    /// One timer for the connection, not one a hit: at the oldest unanswered hit's deadline, or when the
    /// connection has been idle long enough to close.
    private var timer: Scheduled<Void>?
    /// The connection was closed because the oldest hit's time ran out.
    private var timedOut = false
    /// When the last hit was answered or written.
    private var lastUsed = NIODeadline.now()

    init(target: PostbackTarget, owner: PostbackConnections) {
        self.target = target
        self.owner = owner
    }

    func send(_ hit: Outgoing) {
        if let handler, channel != nil {
            write(hit, handler)
        } else {
            unsent.append(hit)
            connect()
        }
    }

    private func write(_ hit: Outgoing, _ handler: AnswerHandler) {
        inFlight.append(hit)
        lastUsed = .now()
        handler.write(hit.request)
        armTimer()
    }

    private func connect() {
        guard !connecting else { return }
        connecting = true
        let loop = owner.loop
        let me = NIOLoopBound(self, eventLoop: loop)
        var ssl: NIOSSLContext?
        if target.tls {
            do { ssl = try owner.context() } catch {
                connecting = false
                fail(&unsent, "cannot set up TLS: \(error)")
                return
            }
        }
        let host = target.host
        // An IP address is no name for SNI; NIOSSL then checks the certificate against the address.
        let sniName = host.contains(":") || host.split(separator: ".").allSatisfy({ Int($0) != nil }) ? nil : host
        let sslBox = ssl.map { NIOLoopBound($0, eventLoop: loop) }
        ClientBootstrap(group: loop)
            .connectTimeout(.seconds(10))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                do {
                    let sync = channel.pipeline.syncOperations
                    if let sslBox { try sync.addHandler(try NIOSSLClientHandler(context: sslBox.value, serverHostname: sniName)) }
                    try sync.addHTTPClientHandlers()
                    try sync.addHandler(AnswerHandler(connection: me.value))
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            .connect(host: host, port: target.port)
            .whenComplete { result in me.value.connected(result) }
    }

    private func connected(_ result: Result<any Channel, any Error>) {
        connecting = false
        switch result {
        case .failure(let error):
            fail(&unsent, "cannot connect to \(target.host):\(target.port): \(error)")
        case .success(let channel):
            guard let handler = try? channel.pipeline.syncOperations.handler(type: AnswerHandler.self) else {
                channel.close(promise: nil)
                fail(&unsent, "the connection to \(target.host):\(target.port) could not be set up")
                return
            }
            self.channel = channel
            self.handler = handler
            while let hit = unsent.popFirst() { write(hit, handler) }
        }
    }

    /// The oldest hit in flight was answered; `keepAlive` false: the receiver closes the connection after
    /// it, so the next hit opens another (and any pipelined behind it has no answer).
    func answered(_ answer: PostbackAnswer, keepAlive: Bool) {
        guard let hit = inFlight.popFirst() else { return }
        lastUsed = .now()
        if !keepAlive { detach("the receiver closed the connection before an answer") }
        hit.done(answer)
    }

    /// `channel` closed (by either side, or an error): every hit in flight on it has no answer. A channel
    /// this connection has left already (`detach`) is not its business.
    func lost(_ channel: any Channel, _ why: String) {
        guard let current = self.channel, current === channel else { return }
        let first = timedOut ? "no answer within \(Self.seconds(inFlight.first?.request.timeout))" : why
        detach(first)
        if unsent.isEmpty { owner.forget(self) } else { connect() }
    }

    /// Leaves the channel (closing it) and fails what is in flight on it: the first with `why`.
    private func detach(_ why: String) {
        let old = channel
        channel = nil
        handler = nil
        timer?.cancel()
        timer = nil
        timedOut = false
        old?.close(promise: nil)
        var gone = inFlight
        inFlight.removeAll()
        var message = why
        while let hit = gone.popFirst() {
            hit.done(.transport(message))
            message = "the connection closed before an answer"
        }
    }

    func close() {
        detach("the transport was shut down")
        fail(&unsent, "the transport was shut down")
    }

    private func armTimer() {
        guard timer == nil, channel != nil else { return }
        let me = NIOLoopBound(self, eventLoop: owner.loop)
        timer = owner.loop.scheduleTask(deadline: inFlight.first?.deadline ?? lastUsed + owner.idle) { me.value.timerFired() }
    }

    private func timerFired() {
        timer = nil
        if let first = inFlight.first {
            if first.deadline <= .now() {
                timedOut = true
                channel?.close(promise: nil)
                return
            }
        } else if unsent.isEmpty, !connecting, lastUsed + owner.idle <= .now() {
            // Idle: closed and forgotten, so that a rule sending to many hosts does not keep a socket for each.
            detach("idle")
            owner.forget(self)
            return
        }
        armTimer()
    }

    private func fail(_ hits: inout CircularBuffer<Outgoing>, _ why: String) {
        var gone = hits
        hits.removeAll()
        while let hit = gone.popFirst() { hit.done(.transport(why)) }
    }

    static func seconds(_ t: TimeAmount?) -> String {
        guard let t else { return "its time-out" }
        return "\(Double(t.nanoseconds) / 1e9) s"
    }
}

/// Writes hits and takes their answers' status and `Retry-After`; bodies are dropped as they arrive.
final class AnswerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let connection: PostbackConnection
    private var context: ChannelHandlerContext?
    private var status: Int?
    private var retryAfter: Double?
    private var keepAlive = true
    private var error: (any Error)?

    init(connection: PostbackConnection) {
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func write(_ request: PostbackRequest) {
        guard let context else { return }
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        if let body = request.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            // 1xx answers are not the answer (HTTPResponseDecoder passes them on).
            guard head.status.code >= 200 else { return }
            status = Int(head.status.code)
            retryAfter = head.headers.first(name: "Retry-After").flatMap(Double.init)
            keepAlive = head.isKeepAlive
        case .body:
            break
        case .end:
            guard let code = status else { return }
            status = nil
            connection.answered(.status(code, retryAfter: retryAfter), keepAlive: keepAlive)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if self.error == nil { self.error = error }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.lost(context.channel, error.map { "\($0)" } ?? "the receiver closed the connection")
        context.fireChannelInactive()
    }
}
