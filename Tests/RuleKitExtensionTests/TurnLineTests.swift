import RuleKitCore
import Testing

@testable import RuleKitExtension

/// Turns are served in the order they were taken, whatever order their holders arrive in.
@Suite struct TurnLineTests {
    @Test func turnsAreServedInTheOrderTheyWereTaken() async {
        let line = TurnLine()
        let turns = (0..<50).map { _ in line.take() }
        let served = Locked<[Int]>([])
        await withTaskGroup(of: Void.self) { group in
            // The holders arrive in reverse order; each must still wait for every earlier turn.
            for turn in turns.reversed() {
                group.addTask {
                    await line.wait(for: turn)
                    served.withLock { $0.append(turn) }
                    line.pass(turn)
                }
            }
        }
        #expect(served.withLock { $0 } == turns)
    }
}
