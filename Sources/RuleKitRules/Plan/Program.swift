/// The planned conditions of a rule set flattened into arrays of plain values, so evaluation touches no
/// reference counts: nodes, child lists, operands and a pool of lowercased operand bytes.
///
/// Built once per `CompiledRuleSet`, and the only form that is evaluated: the `PlannedCondition` tree is
/// the input of this translation (and of the rule index), never walked per event. Every condition has a
/// node: comparisons the resolver's converted forms can decide (`compare`), comparisons only the general
/// path can (non-ASCII operand text, keys read afresh each time such as `~cachebust`: `compareValue`),
/// existence, historical conditions, and groups (an unknown logic keeps its children, for explain).
struct Program: Sendable {
    enum Kind: UInt8 {
        /// A group; `never` is one whose logic is unknown (always false, children kept for explain).
        case and, or, never
        case compare, compareValue, exists, history
    }

    struct Node: Sendable {
        var kind: Kind
        /// compare: the operation; exists: 1 when negated.
        var op: UInt8
        /// Groups: first child in `children`; compare, compareValue: operand index; history: index in
        /// `historicals`.
        var a: Int32
        /// Groups: child count.
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
    /// Each operand as planned, by operand index: what the general path and the trace read.
    var operandValues: [Operand] = []
    /// Group logic names of `never` nodes, by node index (for explain).
    var unknownLogic: [Int32: String] = [:]
    var historicals: [PlannedCondition.Historical] = []
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
        case .and(let cs), .or(let cs), .unknownLogic(_, let cs):
            // The children's slots are reserved first and filled as each child is added (their own
            // children land after them): no temporary array per group.
            let start = children.count
            children.append(contentsOf: repeatElement(0, count: cs.count))
            for j in cs.indices { children[start + j] = add(cs[j]) }
            let kind: Kind
            switch c {
            case .and: kind = .and
            case .or: kind = .or
            default: kind = .never
            }
            let node = push(Node(kind: kind, op: 0, a: Int32(start), b: Int32(cs.count), slot: -1))
            if case .unknownLogic(let logic, _) = c { unknownLogic[node] = logic }
            return node
        case .existence(let k, let negated):
            record(k)
            return push(Node(kind: .exists, op: negated ? 1 : 0, a: 0, b: 0, slot: Int32(k.slot)))
        case .comparison(let k, let op, let operand):
            record(k)
            var f = FlatOperand(kind: .string, int: 0, double: 0, bool: false, offset: 0, length: 0)
            var general = !k.cacheable
            switch operand {
            case .string(_, var lowered):
                // Copied whole (a byte at a time, each append checks capacity and uniqueness).
                let start = bytes.count
                let ascii = lowered.withUTF8 { b in
                    guard !b.contains(where: { $0 >= 0x80 }) else { return false }
                    bytes.append(contentsOf: b)
                    return true
                }
                if !ascii { general = true }
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
            operandValues.append(operand)
            let opIndex = UInt8(Self.operations.firstIndex(of: op)!)
            return push(
                Node(kind: general ? .compareValue : .compare, op: opIndex, a: Int32(operands.count - 1), b: 0, slot: Int32(k.slot)))
        case .historical(let h):
            historicals.append(h)
            return push(Node(kind: .history, op: 0, a: Int32(historicals.count - 1), b: 0, slot: -1))
        }
    }

    private mutating func push(_ n: Node) -> Int32 {
        nodes.append(n)
        return Int32(nodes.count - 1)
    }
}
