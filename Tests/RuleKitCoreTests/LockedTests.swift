import Dispatch
import Foundation
import RuleKitCore
import Testing

/// `Locked`: one holder at a time, the state released with the lock, errors passed through.
@Suite struct LockedTests {
    @Test func holdersExcludeEachOtherUnderContention() {
        // Two fields that only ever change together: a holder that saw them differ ran beside another.
        struct Pair {
            var a = 0
            var b = 0
        }
        let pair = Locked(Pair())
        let torn = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<20_000 {
                pair.withLock { p in
                    if p.a != p.b { torn.withLock { $0 += 1 } }
                    p.a += 1
                    p.b += 1
                }
            }
        }
        #expect(pair.withLock { ($0.a, $0.b) } == (160_000, 160_000))
        #expect(torn.withLock { $0 } == 0)
    }

    @Test func theStateIsReleasedWithTheLock() {
        final class Token {}
        weak var weakToken: Token?
        do {
            let token = Token()
            weakToken = token
            let locked = Locked([token])
            #expect(locked.withLock { $0.count } == 1)
        }
        #expect(weakToken == nil)
    }

    @Test func anErrorLeavesTheLockFree() {
        struct Refused: Error {}
        let locked = Locked(1)
        #expect(throws: Refused.self) {
            try locked.withLock { value in
                value = 2
                throw Refused()
            }
        }
        // Taken again at once: the lock was let go on the way out.
        #expect(locked.withLock { $0 } == 2)
    }
}
