// What the validator reads of an instance. The keywords are written once (`Run`, generic over this
// protocol); a `Value` tree and a node of a `JSONTape` (`TapeInstance`) are the two instances it reads.
// The `Value` one is the plain reference: the tests run the JSON-Schema-Test-Suite and the XDM workload
// through both and compare the verdicts.
public import RuleKitCore

/// One instance (a document or a node inside one), as the validator reads it.
protocol ValidationInstance {
    associatedtype Key: InstanceKey
    associatedtype Elements: Sequence<Self>
    associatedtype Members: Sequence<(key: Key, value: Self)>

    var kind: Value.Kind { get }
    /// The instance as a `Value`. A tape makes one: only for messages, equality (`enum`, `const`,
    /// `uniqueItems`) and the error pass.
    var asValue: Value { get }
    /// An int or a double, as a double.
    var number: Double? { get }
    /// An int.
    var integer: Int64? { get }
    var text: String? { get }
    /// The number of elements of an array or members of an object; 0 for anything else.
    var size: Int { get }
    /// An array's elements in order (empty for anything else).
    var elements: Elements { get }
    /// An object's members in order (empty for anything else).
    var members: Members { get }
    /// Whether an object has a member `name`.
    func hasMember(_ name: String) -> Bool
    /// The same for every read of one container during a run (nil for scalars and empty containers):
    /// the verdict-only pass memoizes reference applications by it.
    var identity: UInt64? { get }
}

extension Value: ValidationInstance {
    var asValue: Value { self }

    var number: Double? { numberValue }

    var integer: Int64? {
        if case .int(let i) = self { return i }
        return nil
    }

    var text: String? { stringValue }

    var size: Int {
        switch self {
        case .array(let a): a.count
        case .object(let o): o.count
        default: 0
        }
    }

    var elements: [Value] {
        if case .array(let a) = self { return a }
        return []
    }

    var members: ValueObject {
        if case .object(let o) = self { return o }
        return ValueObject()
    }

    func hasMember(_ name: String) -> Bool {
        if case .object(let o) = self { return o[name] != nil }
        return false
    }

    var identity: UInt64? { storageIdentity.map { UInt64($0) } }
}
