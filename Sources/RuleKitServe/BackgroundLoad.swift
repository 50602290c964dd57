// A reload reads, plans and checks a whole rule set: tens of milliseconds of CPU (rules-1000 from a zip)
// that, run on a thread of the cooperative pool (two of them on two cores), took one from the batches it
// serves: their p99 doubled while a new version was installed. The load runs instead on a thread of its own
// at the lowest priority, nice 19 (on Linux a thread's own nice, set with `setpriority` on itself): a batch
// arriving meanwhile preempts it, and it takes what the batches leave. Nice is a weight, not a class, so a
// reload under full load is slowed, never starved.
internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#endif

enum BackgroundLoad {
    /// `body`'s result, computed on a new thread at the lowest priority; the caller's task waits without
    /// holding a thread.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
            let thread = Thread {
                #if canImport(Glibc)
                    // Only this thread's priority: with `who` 0, Linux sets the calling thread's nice.
                    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
                #endif
                done.resume(returning: body())
            }
            // The loaders recurse into a rule file's nesting (bounded by the readers' depth limit): the main
            // thread's stack size, not a secondary thread's default.
            thread.stackSize = 8 << 20
            thread.name = "rulekit-reload"
            thread.start()
        }
    }
}
