// An answer read whole on the client's event loop — status, headers and the body up to a bound — and
// handed over once: one thread hand-off per exchange. Reading the body as an async sequence instead costs
// a hop per part and one for the head (a rules poll answered 304 spent most of its CPU in such hops).
internal import AsyncHTTPClient
internal import NIOConcurrencyHelpers
internal import NIOCore
internal import NIOHTTP1

/// A whole answer.
struct BoundedAnswer: Sendable {
    var status = 0
    var headers = HTTPHeaders()
    var body: [UInt8] = []
}

/// The body was longer than the bound (by its `Content-Length`, or as it came).
struct BodyPastBound: Error, CustomStringConvertible {
    let bound: Int
    var description: String { "the body is larger than the limit of \(bound) bytes" }
}

/// Collects an answer, failing the request as soon as its body is known to pass `bound`.
final class BoundedAnswerDelegate: HTTPClientResponseDelegate {
    typealias Response = BoundedAnswer
    let bound: Int
    // The delegate is called on one event loop, one call at a time; the box makes that Sendable.
    private let answer = NIOLockedValueBox(BoundedAnswer())

    init(bound: Int) { self.bound = max(0, bound) }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > bound {
            return task.eventLoop.makeFailedFuture(BodyPastBound(bound: bound))
        }
        answer.withLockedValue { a in
            a.status = Int(head.status.code)
            a.headers = head.headers
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let fits = answer.withLockedValue { a -> Bool in
            guard buffer.readableBytes <= bound - a.body.count else { return false }
            a.body.append(contentsOf: buffer.readableBytesView)
            return true
        }
        return fits ? task.eventLoop.makeSucceededVoidFuture() : task.eventLoop.makeFailedFuture(BodyPastBound(bound: bound))
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        answer.withLockedValue { $0 }
    }
}

extension HTTPClient {
    /// Sends `request` and reads its answer whole (body bounded), resuming the caller once.
    func answer(_ request: HTTPClient.Request, bound: Int, deadline: NIODeadline) async throws -> BoundedAnswer {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<BoundedAnswer, any Error>) in
            execute(request: request, delegate: BoundedAnswerDelegate(bound: bound), deadline: deadline).futureResult.whenComplete {
                c.resume(with: $0)
            }
        }
    }
}
