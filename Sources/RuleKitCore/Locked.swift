// A value behind a pthread mutex, in one allocation.
//
// Invariants:
// 1. The mutex lives in the buffer's one tail element: initialised once, when the buffer is made, before
//    anyone can see it, and destroyed once, in `deinit`, when no one can any longer; its address is stable
//    for the buffer's lifetime, as pthreads requires.
// 2. The state (the buffer's header) is read and written only between `pthread_mutex_lock` and
//    `pthread_mutex_unlock` of that mutex, through a pointer lent for the call: that is what makes the
//    class safe to share, and why the accesses need no dynamic exclusivity check (a class's stored `var`
//    passed `inout` costs one on every call: a fifth of the hub's bookkeeping went to them and to `NSLock`).
// The plain reference is the lock-and-property version this replaced; `LockedTests` checks mutual
// exclusion under contention, and ThreadSanitizer sees every lock (it intercepts pthread mutexes).
// pthreads through Foundation, which re-exports the platform's C library.
internal import Foundation

/// A value guarded by a lock, for state shared across threads.
///
/// Backed by a pthread mutex rather than the standard library's `Mutex`, whose futex-based lock
/// ThreadSanitizer cannot see on Linux (every access under it reads as a race there).
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
public final class Locked<State>: @unchecked Sendable {
    // @unchecked: the state is only touched with the mutex held (invariant 2).
    private let storage: LockedStorage<State>

    /// A lock guarding `state`.
    public init(_ state: State) {
        storage = LockedStorage.make(state)
    }

    /// Runs `body` with exclusive access to the state. Do not call out to unknown code inside.
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { state, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
    }
}

/// The state (header) and its mutex (the one element).
private final class LockedStorage<State>: ManagedBuffer<State, pthread_mutex_t> {
    static func make(_ state: State) -> LockedStorage<State> {
        let buffer = unsafeDowncast(create(minimumCapacity: 1) { _ in state }, to: LockedStorage<State>.self)
        buffer.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(mutex, nil)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
        }
        return buffer
    }

    deinit {
        // The header (the state) is destroyed by ManagedBuffer itself; the element is ours.
        _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
    }
}
