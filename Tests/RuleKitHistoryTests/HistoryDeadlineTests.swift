import Foundation
import RuleKitCore
import Testing

@testable import RuleKitHistory

/// The time limit of history calls: one timer for every call in flight.
@Suite struct HistoryDeadlineTests {
    @Test func aCallThatDoesNotAnswerTimesOutNearItsLimitAndIsCancelled() async throws {
        let deadlines = HistoryDeadlines()
        let cancelled = Locked(false)
        let start = ContinuousClock.now
        await #expect(throws: HistoryTimeout.self) {
            try await withTimeout(.milliseconds(200), watchedBy: deadlines) { () async throws -> Int in
                do { try await Task.sleep(for: .seconds(3600)) } catch {
                    cancelled.withLock { $0 = true }
                    throw error
                }
                return 1
            }
        }
        // Not before its limit. (No bound above: a busy machine may take long to come back to this task.)
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        #expect(deadlines.watched == 0)
        // The body is cancelled, not waited for: it ends soon after.
        for _ in 0..<500 where !cancelled.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(cancelled.withLock { $0 })
    }

    @Test func aCallThatAnswersInTimeReturnsItsValueAndLeavesNoDeadline() async throws {
        let deadlines = HistoryDeadlines()
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<200 { group.addTask { try await withTimeout(.seconds(30), watchedBy: deadlines) { i * 2 } } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(values.sorted() == (0..<200).map { $0 * 2 })
        #expect(deadlines.watched == 0)
        let failing = await #expect(throws: CancellationError.self) {
            try await withTimeout(.seconds(30), watchedBy: deadlines) { () async throws -> Int in throw CancellationError() }
        }
        #expect(failing != nil)
        #expect(deadlines.watched == 0)
    }

    @Test func deadlinesFireInTheOrderTheyFallDueAndNotBefore() async throws {
        let deadlines = HistoryDeadlines()
        let fired = Locked<[(name: String, at: ContinuousClock.Instant)]>([])
        let start = ContinuousClock.now
        _ = deadlines.add(after: .seconds(2)) { fired.withLock { $0.append(("late", .now)) } }
        _ = deadlines.add(after: .milliseconds(100)) { fired.withLock { $0.append(("early", .now)) } }
        let removed = deadlines.add(after: .milliseconds(50)) { fired.withLock { $0.append(("removed", .now)) } }
        deadlines.remove(removed)
        for _ in 0..<6_000 where fired.withLock({ $0.count < 2 }) { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        // The earlier one, added after the later, armed the timer earlier; the removed one never fired.
        let seen = fired.withLock { $0 }
        #expect(seen.map(\.name) == ["early", "late"])
        if seen.count == 2 {
            #expect(seen[0].at - start >= .milliseconds(100))
            #expect(seen[1].at - start >= .seconds(2))
        }
        #expect(deadlines.watched == 0)
    }

    @Test func limitsAreBoundedIntervals() {
        #expect(HistoryDeadlines.interval(.zero) == .nanoseconds(1_000_000))
        #expect(HistoryDeadlines.interval(.milliseconds(1_500)) == .nanoseconds(1_500_000_000))
        #expect(HistoryDeadlines.interval(.seconds(Int64.max)) == .seconds(86_400))
        #expect(HistoryDeadlines.interval(.seconds(-5)) == .nanoseconds(1_000_000))
    }
}
