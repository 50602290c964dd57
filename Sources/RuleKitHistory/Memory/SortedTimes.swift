// A hash's timestamps, kept sorted for the reference's window questions.
internal import Foundation
internal import RuleKitCore

/// Timestamps (milliseconds) kept sorted, with the window questions the reference asks of them.
struct SortedTimes: Sendable {
    private(set) var times: [Double] = []

    init() {}

    /// Times already in ascending order.
    init(sorted: [Double]) { times = sorted }

    var count: Int { times.count }

    /// Inserts `t` in order (records mostly arrive in time order: an append).
    mutating func insert(_ t: Double) {
        if let last = times.last, last > t {
            times.insert(t, at: lowerBound(t))
        } else {
            times.append(t)
        }
    }

    /// The first index whose time is >= `t`.
    func lowerBound(_ t: Double) -> Int {
        var lo = 0
        var hi = times.count
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if times[mid] < t { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The first index whose time is > `t`.
    func upperBound(_ t: Double) -> Int {
        var lo = 0
        var hi = times.count
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if times[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Removes one `t` if it is kept; whether it was.
    mutating func remove(_ t: Double) -> Bool {
        let i = lowerBound(t)
        guard i < times.count, times[i] == t else { return false }
        times.remove(at: i)
        return true
    }

    /// How many times fall in [low, high], and the oldest and newest of them: two bisections, or none when
    /// the window holds an end of the series (a question without a window holds both: a long series'
    /// bisection was a dozen cache misses per question).
    func count(low: Double, high: Double) -> EventHistoryResult {
        guard let first = times.first, let last = times.last else { return EventHistoryResult(count: 0) }
        let a = first >= low ? 0 : lowerBound(low)
        let b = last <= high ? times.count : upperBound(high)
        guard a < b else { return EventHistoryResult(count: 0) }
        return EventHistoryResult(
            count: b - a, oldest: Date(timeIntervalSince1970: times[a] / 1000), newest: Date(timeIntervalSince1970: times[b - 1] / 1000))
    }

    /// The window of a question as the bounds of `count(low:high:)`: `from` and `after` both bound it
    /// below.
    static func bounds(from: Date?, to: Date?, after: Date?) -> (low: Double, high: Double) {
        // Asked once per historical condition per event: no array for the two lower bounds.
        var low = -Double.infinity
        if let from { low = from.timeIntervalSince1970 * 1000 }
        if let after { low = max(low, after.timeIntervalSince1970 * 1000) }
        let high = to.map { $0.timeIntervalSince1970 * 1000 } ?? Double.infinity
        return (low, high)
    }
}
