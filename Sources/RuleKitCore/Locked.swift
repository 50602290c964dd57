internal import Foundation

/// A value guarded by a lock, for state shared across threads.
///
/// Backed by a pthread mutex (through `NSLock`) rather than the standard library's `Mutex`, whose
/// futex-based lock ThreadSanitizer cannot see on Linux (every access under it reads as a race there).
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
public final class Locked<State>: @unchecked Sendable {
    // Only touched under `lock`, which makes the class safe to share.
    private var state: State
    private let lock = NSLock()

    /// A lock guarding `state`.
    public init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the state. Do not call out to unknown code inside.
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
