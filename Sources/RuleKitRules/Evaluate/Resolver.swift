public import Foundation
public import RuleKitCore

/// Resolves keys against one event for one evaluation pass, like the reference's token finder: the clock
/// is read once (when a key first needs it), shared states are fetched once per extension.
public struct Resolver {
    /// The event being evaluated.
    public private(set) var event: Event
    let runtime: any RulesRuntime
    private var clockReading: Date?
    private var timestamps = Timestamps()
    private var states: [String: ValueObject?] = [:]
    private var xdmStates: [String: ValueObject?] = [:]
    /// The per-pass cache of condition keys, by slot; an entry is valid when its stamp is `generation`.
    private var slotValues: [Value?] = []
    private var slotStamps: [UInt32] = []
    private var generation: UInt32 = 1
    var forms = SlotForms()
    /// The rule index's candidate bit set, all zero between uses (lent out while candidates are visited).
    private var candidateBits: [UInt64] = []
    /// The event data, borrowed: the fast paths walk it with no reference counting. Valid while `event`
    /// holds the data, so it is set with every event.
    private var dataView: UnsafeObjectView?
    /// Walks of `.data` slots done ahead for this pass by batch matching; valid when the stamp is
    /// `generation`.
    private var prewalks: [FlatLookup.Walk] = []
    private var prewalkStamps: [UInt32] = []
    /// The shared states fetched this pass, by `SlotTable.states` position (valid when the stamp is
    /// `generation`).
    private var stateStamps: [UInt32] = []
    private var stateObjects: [ValueObject?] = []
    /// Per state slot, across passes: the state object last read and the key's value in it. The object
    /// is held, so an equal storage address later means the very same, unmodified object.
    private var memoObjects: [ValueObject?] = []
    private var memoValues: [Value?] = []
    /// Bytes batch matching read ahead, summed: kept so that those loads are not optimized away.
    var touched: UInt8 = 0

    /// A resolver for `event`, with caches for `slotCount` condition keys.
    public init(event: Event, runtime: any RulesRuntime, slotCount: Int = 0) {
        self.event = event
        self.runtime = runtime
        dataView = self.event.data?.unsafeView
        if slotCount > 0 {
            slotValues = Array(repeating: nil, count: slotCount)
            slotStamps = Array(repeating: 0, count: slotCount)
        }
    }

    /// Starts a new pass for another event, keeping the cache's storage.
    public mutating func reset(event: consuming Event) {
        self.event = event
        dataView = self.event.data?.unsafeView
        clockReading = nil
        if !states.isEmpty { states.removeAll(keepingCapacity: true) }
        if !xdmStates.isEmpty { xdmStates.removeAll(keepingCapacity: true) }
        generation &+= 1
        if generation == 0 {
            for i in slotStamps.indices { slotStamps[i] = 0 }
            for i in prewalkStamps.indices { prewalkStamps[i] = 0 }
            for i in stateStamps.indices { stateStamps[i] = 0 }
            for i in forms.stamps.indices { forms.stamps[i] = 0 }
            generation = 1
        }
        if !forms.pool.isEmpty { forms.pool.removeAll(keepingCapacity: true) }

    }

    /// The time of this pass: the clock read the first time a key asks for it, then kept.
    public var now: Date {
        mutating get {
            if let t = clockReading { return t }
            let t = runtime.now()
            clockReading = t
            return t
        }
    }

    /// Lends the zeroed candidate bit set, at least `words` long.
    mutating func takeCandidateBits(words: Int) -> [UInt64] {
        var bits: [UInt64] = []
        swap(&bits, &candidateBits)
        if bits.count < words { bits.append(contentsOf: repeatElement(0, count: words - bits.count)) }
        return bits
    }

    /// Takes the bit set back; the borrower leaves it zeroed.
    mutating func returnCandidateBits(_ bits: [UInt64]) { candidateBits = bits }

    /// The value of a condition key, read at most once per pass.
    @inline(__always)
    public mutating func resolve(_ key: SlotKey) -> Value? {
        guard key.cacheable else { return resolve(key.ref) }
        if key.slot >= slotStamps.count {
            slotStamps.append(contentsOf: repeatElement(0, count: key.slot + 1 - slotStamps.count))
            slotValues.append(contentsOf: repeatElement(nil, count: key.slot + 1 - slotValues.count))
        }
        if slotStamps[key.slot] == generation { return slotValues[key.slot] }
        let v = resolve(key.ref)
        slotValues[key.slot] = v
        slotStamps[key.slot] = generation
        return v
    }

    /// Marks the slot's converted forms as belonging to this pass.
    @inline(__always)
    mutating func touchForms(_ slot: Int) {
        if slot >= forms.stamps.count { forms.ensure(slot + 1) }
        if forms.stamps[slot] != generation {
            forms.stamps[slot] = generation
            forms.ready[slot] = 0
        }
    }

    /// Walks the `.data` slots among `slotList` not walked yet this pass, all at once (see
    /// `FlatLookup.multiWalk`), and records their walks: the rule index's probe reads several keys of
    /// every event, and their walks into data out of cache then wait on memory together.
    mutating func prewalk(_ slotList: [Int], _ slots: SlotTable) {
        guard let root = dataView else { return }
        let count = slotList.count
        withUnsafeTemporaryAllocation(of: UnsafeBufferPointer<FlatPath.Step>.self, capacity: count) { paths in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { chosen in
                var n = 0
                for slot in slotList
                where slots.plans[slot].kind == .data
                    && !(slot < prewalkStamps.count && prewalkStamps[slot] == generation)
                {
                    paths.initializeElement(at: n, to: slots.plans[slot].steps)
                    chosen.initializeElement(at: n, to: slot)
                    n += 1
                }
                guard n > 1 else { return }
                withUnsafeTemporaryAllocation(of: FlatLookup.Walk?.self, capacity: n) { out in
                    touched &+= FlatLookup.multiWalk(root, UnsafeBufferPointer(rebasing: paths[0..<n]), into: out)
                    for k in 0..<n {
                        if let w = out[k] { presetWalk(chosen[k], w) }
                    }
                }
            }
        }
    }

    /// Records a `.data` slot's walk, done ahead for this pass's event (see `Evaluator.forEachMatch`).
    mutating func presetWalk(_ slot: Int, _ walk: FlatLookup.Walk) {
        if slot >= prewalkStamps.count {
            prewalkStamps.append(contentsOf: repeatElement(0, count: slot + 1 - prewalkStamps.count))
            prewalks.append(contentsOf: repeatElement(.missing, count: slot + 1 - prewalks.count))
        }
        prewalks[slot] = walk
        prewalkStamps[slot] = generation
    }

    /// A `.data` slot's walk over the borrowed event data, or nil when only the general path can tell
    /// (no event data makes every key "", and dotted keys or indexed objects on the way).
    @inline(__always)
    func dataWalk(_ slot: Int, _ plan: SlotPlan) -> FlatLookup.Walk? {
        guard plan.kind == .data, let root = dataView else { return nil }
        if slot < prewalkStamps.count && prewalkStamps[slot] == generation { return prewalks[slot] }
        let w = FlatLookup.plainWalk(root, plan.steps)
        if case .slow = w { return nil }
        return w
    }

    /// A slot's value by the general path. A `~state`/`~xdm` key is looked up again only when the runtime
    /// hands back another state object than last time (states change far less often than events come).
    mutating func slotValue(_ slot: Int, _ slots: SlotTable) -> Value? {
        let plan = slots.plans[slot]
        guard plan.kind == .state || plan.kind == .xdm else { return resolve(slots.keys[slot]) }
        let id = Int(plan.state)
        if id >= stateStamps.count {
            stateStamps.append(contentsOf: repeatElement(0, count: id + 1 - stateStamps.count))
            stateObjects.append(contentsOf: repeatElement(nil, count: id + 1 - stateObjects.count))
        }
        let object: ValueObject?
        if stateStamps[id] == generation {
            object = stateObjects[id]
        } else {
            let name = slots.states[id]
            object = plan.kind == .xdm ? runtime.xdmSharedState(name, at: event) : runtime.sharedState(name, at: event)
            stateObjects[id] = object
            stateStamps[id] = generation
        }
        guard let object else { return nil }
        if slot >= memoObjects.count {
            memoObjects.append(contentsOf: repeatElement(nil, count: slot + 1 - memoObjects.count))
            memoValues.append(contentsOf: repeatElement(nil, count: slot + 1 - memoValues.count))
        }
        if let held = memoObjects[slot], held.storageAddress == object.storageAddress, held.count == object.count {
            return memoValues[slot]
        }
        let value: Value?
        switch slots.keys[slot].ref {
        case .state(_, let path), .xdm(_, let path): value = FlatLookup.leaf(path, in: object)
        default: value = nil
        }
        memoObjects[slot] = object
        memoValues[slot] = value
        return value
    }

    /// The slot's string form, lowercased, as (offset, length) in `forms.pool`; length -1 when not ASCII.
    mutating func stringForm(_ slot: Int, _ slots: SlotTable) -> (Int, Int) {
        touchForms(slot)
        if forms.ready[slot] & 1 != 0 { return (Int(forms.stringOffset[slot]), Int(forms.stringLength[slot])) }
        let plan = slots.plans[slot]
        let length: Int
        if let w = dataWalk(slot, plan) {
            // Read in place; a missing key or a container is "" (the reference's flattened map has no entry).
            if case .found(let v) = w { length = forms.appendLowercasedASCII(of: v) } else { length = 0 }
        } else if plan.kind == .type {
            length = forms.appendLowercasedASCII(event.type)
        } else if plan.kind == .source {
            length = forms.appendLowercasedASCII(event.source)
        } else {
            let v = slotValue(slot, slots) ?? .string("")
            if case .string(let s) = v {
                length = forms.appendLowercasedASCII(s)
            } else {
                length = forms.appendLowercasedASCII(Conversion.string(v))
            }
        }
        let offset = forms.pool.count - max(length, 0)
        forms.ready[slot] |= 1
        forms.stringOffset[slot] = Int32(offset)
        forms.stringLength[slot] = Int32(length)
        return (offset, length)
    }

    /// The slot's `int(...)` conversion (a missing key is "", which does not convert).
    mutating func intForm(_ slot: Int, _ slots: SlotTable) -> Int64? {
        touchForms(slot)
        if forms.ready[slot] & 2 == 0 {
            let v: Int64?
            if let w = dataWalk(slot, slots.plans[slot]) {
                if case .found(let p) = w, case .leaf = p.pointee.unsafeView { v = Conversion.int(p.pointee) } else { v = nil }
            } else {
                v = Conversion.int(slotValue(slot, slots) ?? .string(""))
            }
            forms.ints[slot] = v ?? 0
            forms.intOK[slot] = v != nil
            forms.ready[slot] |= 2
        }
        return forms.intOK[slot] ? forms.ints[slot] : nil
    }

    /// The slot's `double(...)` conversion.
    mutating func doubleForm(_ slot: Int, _ slots: SlotTable) -> Double? {
        touchForms(slot)
        if forms.ready[slot] & 4 == 0 {
            let v: Double?
            if let w = dataWalk(slot, slots.plans[slot]) {
                if case .found(let p) = w, case .leaf = p.pointee.unsafeView { v = Conversion.double(p.pointee) } else { v = nil }
            } else {
                v = Conversion.double(slotValue(slot, slots) ?? .string(""))
            }
            forms.doubles[slot] = v ?? 0
            forms.doubleOK[slot] = v != nil
            forms.ready[slot] |= 4
        }
        return forms.doubleOK[slot] ? forms.doubles[slot] : nil
    }

    /// Whether the slot's key exists (its value is not nil).
    mutating func exists(_ slot: Int, _ slots: SlotTable) -> Bool {
        if let w = dataWalk(slot, slots.plans[slot]) {
            if case .found(let p) = w, case .leaf = p.pointee.unsafeView { return true }
            return false
        }
        if case .none = slotValue(slot, slots) { return false }
        return true
    }

    /// The value of `key`, or nil when it does not exist. Event-data keys of an event with nil data
    /// resolve to "" (not nil), as in the reference.
    public mutating func resolve(_ key: KeyRef) -> Value? {
        switch key {
        case .type: return .string(event.type)
        case .source: return .string(event.source)
        case .timestampU: return .int(Int64(now.timeIntervalSince1970.rounded(.down)))
        case .timestampZ: return .string(timestamps.iso8601Local(now))
        case .timestampP: return .string(timestamps.iso8601UTCMillis(now))
        case .sdkVersion: return .string(runtime.sdkVersion)
        case .cacheBust: return .string(String(Int.random(in: 1..<100_000_000)))
        case .allURL: return .string(event.data.map(AllURL.queryString) ?? "")
        case .allJSON: return .string(event.data.map { JSONWriter.string(.object($0)) } ?? "")
        case .nothing: return nil
        case .state(let ext, let path):
            // One hash of the extension name per read: fetched once per pass, then remembered (even nil).
            let data: ValueObject?
            if let known = states[ext] {
                data = known
            } else {
                data = runtime.sharedState(ext, at: event)
                states[ext] = .some(data)
            }
            guard let data, let v = FlatLookup.leaf(path, in: data) else { return nil }
            return v
        case .xdm(let ext, let path):
            let data: ValueObject?
            if let known = xdmStates[ext] {
                data = known
            } else {
                data = runtime.xdmSharedState(ext, at: event)
                xdmStates[ext] = .some(data)
            }
            guard let data, let v = FlatLookup.leaf(path, in: data) else { return nil }
            return v
        case .data(let path):
            guard let data = event.data else { return .string("") }
            return FlatLookup.leaf(path, in: data)
        }
    }
}

/// Finds the leaf the reference's flattened map holds under a dotted key, without flattening.
///
/// Walks the segments; at each object, a key that itself contains dots is also tried when it spells the
/// next few segments (the flattened map cannot tell `{"a.b": 1}` from `{"a": {"b": 1}}`).
enum FlatLookup {
    static func leaf(_ path: FlatPath, in root: ValueObject) -> Value? {
        switch plainWalk(root.unsafeView, path.unsafeSteps) {
        case .found(let v):
            // Not `isLeaf(..) ? v.pointee : nil`: Value is nil-literal expressible, that nil would be .null.
            if isLeaf(v.pointee) { return v.pointee }
            return Optional<Value>.none
        case .missing: return nil
        case .slow: return dottedFind(root, path, 0)
        }
    }

    static func isLeaf(_ v: Value) -> Bool {
        switch v {
        case .object, .array: false
        default: true
        }
    }

    enum Walk {
        /// The value at the end of the plain walk (a leaf or not: callers tell).
        case found(UnsafePointer<Value>)
        case missing
        /// Only `dottedFind` can tell: the plain walk failed where an object on the way may have a dotted
        /// key, or it met a large object (searched through its hash index).
        case slow
    }

    /// Where one step of a walk leaves it.
    enum Advance {
        case next(UnsafeValueView)
        case done(Walk)
    }

    /// One step of the plain walk from `view` by `step`. `sawDotted` notes objects that may have dotted
    /// keys: the plain walk goes through them (the flattened map's first answer, as `dottedFind` tries
    /// the plain key first at every level), but a failure after one is not final.
    @inline(__always)
    static func advance(_ view: UnsafeValueView, _ step: FlatPath.Step, last: Bool, _ sawDotted: inout Bool) -> Advance {
        let v: UnsafePointer<Value>
        switch view {
        case .object(let o):
            // Past a few dozen keys a linear search loses to the object's hash index (the general path).
            if o.isIndexed && o.members.count > 64 { return .done(.slow) }
            if o.mayHaveDottedKeys { sawDotted = true }
            guard let found = o.find(step.key, asciiCount: step.asciiCount) else { return .done(sawDotted ? .slow : .missing) }
            v = found
        case .array(let a):
            guard step.arrayIndex >= 0, step.arrayIndex < a.count, let base = a.baseAddress else {
                return .done(sawDotted ? .slow : .missing)
            }
            v = base + step.arrayIndex
        case .leaf:
            return .done(sawDotted ? .slow : .missing)
        }
        if !last { return .next(v.pointee.unsafeView) }
        // A container at the end is no leaf: after a dotted object, some other spelling may reach one.
        if sawDotted, case .leaf = v.pointee.unsafeView {} else if sawDotted { return .done(.slow) }
        return .done(.found(v))
    }

    /// The walk by plain segments, on borrowed views (the resolver holds the event): no reference
    /// counting on the way down.
    static func plainWalk(_ root: UnsafeObjectView, _ steps: UnsafeBufferPointer<FlatPath.Step>) -> Walk {
        var view = UnsafeValueView.object(root)
        var sawDotted = false
        var i = 0
        while true {
            switch advance(view, steps[i], last: i == steps.count - 1, &sawDotted) {
            case .next(let next): view = next
            case .done(let w): return w
            }
            i += 1
        }
    }

    static func dottedFind(_ o: ValueObject, _ path: FlatPath, _ i: Int) -> Value? {
        if let c = o[path.segments[i]], let f = descend(c, path, i + 1) { return f }
        guard o.mayHaveDottedKeys else { return nil }
        for m in o.members where m.key.utf8.withContiguousStorageIfAvailable({ $0.contains(0x2E) }) ?? m.key.utf8.contains(0x2E) {
            if let j = path.end(ofDottedKey: m.key, from: i), let f = descend(m.value, path, j) { return f }
        }
        return nil
    }

    @inline(__always)
    static func descend(_ v: Value, _ path: FlatPath, _ i: Int) -> Value? {
        if i == path.segments.count {
            // Not `isLeaf(v) ? v : nil`: Value is nil-literal expressible, and that nil would be .null.
            if isLeaf(v) { return v }
            return Optional<Value>.none
        }
        switch v {
        case .object(let o): return dottedFind(o, path, i)
        case .array(let a):
            guard let k = path.indexes[i], k < a.count else { return nil }
            return descend(a[k], path, i + 1)
        default: return nil
        }
    }
}

/// `~all_url`: the event data as a query string.
enum AllURL {
    static func queryString(_ data: ValueObject) -> String {
        var pairs: [String] = []
        flatten(.object(data), prefix: "", into: &pairs)
        return pairs.joined(separator: "&")
    }

    /// Objects are flattened, arrays are not: an array value joins its elements' descriptions with ",".
    static func flatten(_ v: Value, prefix: String, into pairs: inout [String]) {
        switch v {
        case .object(let o):
            for (k, x) in o { flatten(x, prefix: prefix.isEmpty ? k : prefix + "." + k, into: &pairs) }
        case .array(let a):
            let text = a.map(SwiftDescription.describe).joined(separator: ",")
            pairs.append(URLEncoding.queryEncode(prefix + "=" + text))
        default:
            pairs.append(URLEncoding.queryEncode(prefix + "=" + SwiftDescription.describe(v)))
        }
    }
}

/// The reference's timestamp formats. A formatter costs far more to make than to use, so each resolver
/// makes its two once, on first use, and keeps them across passes (a resolver serves one thread at a
/// time, so they are never shared).
struct Timestamps {
    private var local: DateFormatter?
    private var utc: DateFormatter?

    mutating func iso8601Local(_ d: Date) -> String {
        if local == nil { local = Self.formatter("yyyy-MM-dd'T'HH:mm:ssXX", TimeZone.current) }
        return local!.string(from: d)
    }

    mutating func iso8601UTCMillis(_ d: Date) -> String {
        if utc == nil { utc = Self.formatter("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", TimeZone(identifier: "UTC")) }
        return utc!.string(from: d)
    }

    private static func formatter(_ format: String, _ zone: TimeZone?) -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = format
        return f
    }
}
