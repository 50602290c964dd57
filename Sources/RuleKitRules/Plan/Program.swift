/// The planned conditions of a rule set flattened into arrays of plain values, so evaluation touches no
/// reference counts: nodes, child lists, operands and a pool of lowercased operand bytes.
///
/// Built once per `CompiledRuleSet`. Anything the flat form does not cover (historical conditions,
/// operands with non-ASCII text) stays a `PlannedCondition` the evaluator walks the ordinary way.
struct Program: Sendable {
    enum Kind: UInt8 {
        case and, or, never, compare, exists, fallback
    }

    struct Node: Sendable {
        var kind: Kind
        /// compare: the operation; exists: 1 when negated.
        var op: UInt8
        /// and/or: first child in `children`; compare: operand index; fallback: index in `fallbacks`.
        var a: Int32
        /// and/or: child count.
        var b: Int32
        var slot: Int32
    }

    struct FlatOperand: Sendable {
        enum Kind: UInt8 { case string, int, double, bool }
        var kind: Kind
        var int: Int64
        var double: Double
        var bool: Bool
        var offset: Int32
        var length: Int32
    }

    var nodes: [Node] = []
    var children: [Int32] = []
    var operands: [FlatOperand] = []
    var bytes: [UInt8] = []
    var fallbacks: [PlannedCondition] = []
    /// Root node of each rule, by rule position.
    var roots: [Int32] = []
    /// The key of each slot, and how to read it.
    var slots = SlotTable()

    static let operations: [Operation] = Operation.allCases

    /// Which slots already have their key in `slots` (set once; copying a key costs retains).
    private var keyed: [Bool] = []

    init(_ rules: [PlannedRule], slotCount: Int) {
        slots.keys = Array(repeating: SlotKey(ref: .nothing(""), slot: 0), count: slotCount)
        keyed = Array(repeating: false, count: slotCount)
        roots.reserveCapacity(rules.count)
        // By index: `for r in rules` would copy every rule (and retain all it holds) just to read one field.
        for i in rules.indices { roots.append(add(rules[i].condition)) }
        keyed = []
        slots.plan()
    }

    private mutating func record(_ k: SlotKey) {
        if !keyed[k.slot] {
            keyed[k.slot] = true
            slots.keys[k.slot] = k
        }
    }

    private mutating func add(_ c: PlannedCondition) -> Int32 {
        switch c {
        case .and(let cs), .or(let cs):
            // The children's slots are reserved first and filled as each child is added (their own
            // children land after them): no temporary array per group.
            let start = children.count
            children.append(contentsOf: repeatElement(0, count: cs.count))
            for j in cs.indices { children[start + j] = add(cs[j]) }
            let isAnd: Bool = if case .and = c { true } else { false }
            return push(Node(kind: isAnd ? .and : .or, op: 0, a: Int32(start), b: Int32(cs.count), slot: -1))
        case .unknownLogic:
            return push(Node(kind: .never, op: 0, a: 0, b: 0, slot: -1))
        case .existence(let k, let negated):
            guard k.cacheable else { return fallback(c) }
            record(k)
            return push(Node(kind: .exists, op: negated ? 1 : 0, a: 0, b: 0, slot: Int32(k.slot)))
        case .comparison(let k, let op, let operand):
            guard k.cacheable else { return fallback(c) }
            record(k)
            var f = FlatOperand(kind: .string, int: 0, double: 0, bool: false, offset: 0, length: 0)
            switch operand {
            case .string(_, var lowered):
                // Copied whole (a byte at a time, each append checks capacity and uniqueness).
                let start = bytes.count
                let ascii = lowered.withUTF8 { b in
                    guard !b.contains(where: { $0 >= 0x80 }) else { return false }
                    bytes.append(contentsOf: b)
                    return true
                }
                guard ascii else { return fallback(c) }
                f.offset = Int32(start)
                f.length = Int32(bytes.count - start)
            case .int(let i):
                f.kind = .int
                f.int = i
            case .double(let d):
                f.kind = .double
                f.double = d
            case .bool(let b):
                f.kind = .bool
                f.bool = b
            }
            operands.append(f)
            let opIndex = UInt8(Self.operations.firstIndex(of: op)!)
            return push(Node(kind: .compare, op: opIndex, a: Int32(operands.count - 1), b: 0, slot: Int32(k.slot)))
        case .historical:
            return fallback(c)
        }
    }

    private mutating func fallback(_ c: PlannedCondition) -> Int32 {
        // The key is still recorded: the rule index reads every indexed key through this table.
        switch c {
        case .comparison(let k, _, _) where k.cacheable: record(k)
        case .existence(let k, _) where k.cacheable: record(k)
        default: break
        }
        fallbacks.append(c)
        return push(Node(kind: .fallback, op: 0, a: Int32(fallbacks.count - 1), b: 0, slot: -1))
    }

    private mutating func push(_ n: Node) -> Int32 {
        nodes.append(n)
        return Int32(nodes.count - 1)
    }
}
