public import RuleKitCore

/// Whether a shared state holds data.
public enum SharedStateStatus: Sendable, Hashable {
    case set, pending, none
}

/// Which state a read resolves to: the newest of any status, or the newest that is set.
public enum SharedStateResolution: Sendable, Hashable {
    case any, lastSet
}

/// What a shared-state read returns.
public struct SharedStateResult: Sendable, Hashable {
    /// Whether the state is set, pending or absent.
    public let status: SharedStateStatus
    /// The data, when set (a pending state reads as the last set one).
    public let value: ValueObject?

    /// A result of `status` with `value`.
    ///
    /// - Parameters:
    ///   - status: set, pending or none.
    ///   - value: the data, when there is some.
    public init(status: SharedStateStatus, value: ValueObject?) {
        self.status = status
        self.value = value
    }
}

/// Resolves a pending shared state with its data.
public typealias SharedStateResolver = @Sendable (ValueObject?) -> Void

/// One extension's history of one kind of shared state (standard or XDM), versioned by event number.
///
/// Versions strictly increase: setting at or below the newest version is ignored. Not thread-safe on
/// its own; the hub guards it.
struct SharedStateHistory {
    struct Node {
        var version: Int
        var status: SharedStateStatus
        var data: ValueObject?
    }

    private(set) var nodes: [Node] = []
    var isEmpty: Bool { nodes.isEmpty }
    var newestVersion: Int? { nodes.last?.version }

    /// Adds a state; false (and nothing changes) when `version` is not above the newest.
    mutating func add(version: Int, status: SharedStateStatus, data: ValueObject?) -> Bool {
        if let head = nodes.last, version <= head.version { return false }
        // A pending state starts with the latest data as its placeholder.
        let value = status == .pending ? nodes.last?.data : data
        nodes.append(Node(version: version, status: status, data: value))
        return true
    }

    /// Resolves the pending node at `version`; false when it is not pending (resolved already).
    mutating func resolve(version: Int, data: ValueObject?) -> Bool {
        guard let i = nodes.lastIndex(where: { $0.version == version }), nodes[i].status == .pending else { return false }
        nodes[i].status = .set
        nodes[i].data = data
        return true
    }

    /// The state at `version`: `.any` the newest at or below it (pending included), `.lastSet` the newest
    /// set one; when every candidate is newer, the oldest candidate (reading before the first state
    /// gives the first state).
    func resolve(at version: Int, resolution: SharedStateResolution) -> Node? {
        let candidates = resolution == .any ? nodes[...] : ArraySlice(nodes.filter { $0.status == .set })
        guard let oldest = candidates.first else { return nil }
        // Binary search for the last node with version ≤ requested.
        var lo = candidates.startIndex
        var hi = candidates.endIndex
        while lo < hi {
            let mid = (lo + hi) / 2
            if candidates[mid].version <= version { lo = mid + 1 } else { hi = mid }
        }
        return lo > candidates.startIndex ? candidates[lo - 1] : oldest
    }
}
