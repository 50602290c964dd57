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
    var generation: UInt32 = 1
    var forms = SlotForms()
    /// The rule index's candidate bit set, all zero between uses (lent out while candidates are visited).
    private var candidateBits: [UInt64] = []
    /// The event data, lent for the current pass by `borrowingData` (nil outside it): the fast paths walk
    /// it with no reference counting. Never kept past the pass.
    var dataView: UnsafeObjectView?
    /// The same for event data kept as a tape (`Event.document`).
    var tapeView: UnsafeTapeView?
    /// Walks of `.data` slots done ahead for this pass by batch matching; valid when the stamp is
    /// `generation`.
    var prewalks: [FlatLookup.Walk] = []
    var prewalkStamps: [UInt32] = []
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
    /// Across passes: the last rendering of each planned consequence, and its event's data.
    var renderings = Renderings()

    /// A resolver for `event`, with caches for `slotCount` condition keys.
    ///
    /// - Parameters:
    ///   - event: the event.
    ///   - runtime: where states and history are read.
    ///   - slotCount: the condition keys the plan caches.
    public init(event: Event, runtime: any RulesRuntime, slotCount: Int = 0) {
        self.event = event
        self.runtime = runtime
        if slotCount > 0 {
            slotValues = Array(repeating: nil, count: slotCount)
            slotStamps = Array(repeating: 0, count: slotCount)
        }
    }

    /// Starts a new pass for another event, keeping the cache's storage.
    ///
    /// - Parameter event: the next event.
    public mutating func reset(event: consuming Event) {
        assert(dataView == nil, "a new pass cannot start while the event data is lent")
        self.event = event
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

    /// The time of this pass: the clock read the first time a key asks for it, cut to whole
    /// milliseconds, then kept. The cut is why the three time tokens name one second: the date
    /// formatters round to the nearest millisecond, so 12:00:05.9996 would print as 12:00:06 while
    /// `~timestampu` floors it to 5.
    public var now: Date {
        mutating get {
            if let t = clockReading { return t }
            let t = Self.wholeMilliseconds(runtime.now())
            clockReading = t
            return t
        }
    }

    /// `d` floored to a whole millisecond. The quotient of a whole number of milliseconds by 1,000 lies
    /// within a rounding error of that millisecond, so a formatter that rounds to milliseconds prints it.
    static func wholeMilliseconds(_ d: Date) -> Date {
        let ms = (d.timeIntervalSince1970 * 1000).rounded(.down)
        guard ms.isFinite else { return d }
        return Date(timeIntervalSince1970: ms / 1000)
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
    ///
    /// - Parameter key: the key and its cache slot.
    /// - Returns: the value, or nil when it does not exist.
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

    /// The value of `key`, or nil when it does not exist. Event-data keys of an event with nil data
    /// resolve to "" (not nil), as in the reference.
    ///
    /// - Parameter key: the parsed key.
    /// - Returns: the value, or nil.
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
            // Data kept as a tape: the leaf read there, the tape made into an object only when the walk
            // cannot tell.
            if let tape = event.document, case .some(let found) = FlatLookup.leaf(path, in: tape) {
                assert(
                    found == FlatLookup.referenceLeaf(path, in: tape.object()),
                    "the tape walk and the reference disagree on \(path.raw)")
                return found
            }
            guard let data = event.data else { return .string("") }
            return FlatLookup.leaf(path, in: data)
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
