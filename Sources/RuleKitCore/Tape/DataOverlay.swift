// Event data read into a tape with one merge (an `add` or `mod` consequence's data) laid over it.
//
// Invariants:
// 1. Immutable once made, but for the merged object, made once on first use (`MadeOnce`, as a tape's
//    object is).
// 2. The tape is the one the event read; the patch is the rendered consequence data, a `Value` tree the
//    overlay owns.
// 3. `write(to:)` copies ranges of the tape's text that `UnsafeTapeView.valueSpan` found between the nodes'
//    known offsets (keys' quotes, the object's braces), each inside the text and checked for the ':' and
//    ',' that must bound it; anything not laid out so is encoded instead.
// 4. `EventDataMerge.wildcardStart` reads a key's bytes lent by `withUTF8` for the call, indexes below the
//    count only.
// The plain reference is `EventDataMerge.merge` on the tape's object: `object()` is exactly that; what
// `write(to:)` writes reads back as it, and is `JSONWriter`'s text of it for compact input; and
// `changesData()` is its verdict. `DataOverlayTests` and the json fuzz target compare all three. An overlay
// that `adding` made stands for two merges in turn; `DataOverlayTests` compares its object and text with them.

internal import Foundation
internal import Synchronization

/// Event data as read (a tape) with one `EventDataMerge` merge over it, kept apart: the merged object is
/// made only when someone asks for it, and a writer writes the merge straight from the tape.
public final class DataOverlay: @unchecked Sendable {
    // @unchecked: `cached` follows the `MadeOnce` protocol.
    /// The data as read.
    public let base: JSONTape
    /// The object merged into it.
    public let patch: ValueObject
    /// Whether the patch's values replace the data's (`mod`) or only add to it (`add`).
    public let overwrite: Bool
    private let state = Atomic<Int>(0)
    private nonisolated(unsafe) var cached: ValueObject?

    /// `patch` merged into the object `base` stands for (as `Event.merging` makes it).
    public init(base: JSONTape, patch: ValueObject, overwrite: Bool) {
        self.base = base
        self.patch = patch
        self.overwrite = overwrite
    }

    /// The merged object: `EventDataMerge.merge(to: base.object(), from: patch, overwrite:)`, made on the
    /// first call, then shared.
    public func object() -> ValueObject {
        MadeOnce.value(state, cached: { cached }, make: merged, store: { cached = $0 })
    }

    private func merged() -> ValueObject {
        EventDataMerge.merge(to: base.object(), from: patch, overwrite: overwrite)
    }

    /// This overlay with `more` merged after its patch, as one overlay: when that is exactly
    /// `EventDataMerge.merge(to: object(), from: more, overwrite:)`, nil otherwise (the caller merges the
    /// trees). It is when the flag is the same and `more` only adds new top-level members: its keys are
    /// ASCII (so bytes compare as the reference compares keys), named neither by the patch nor by the
    /// data, and no top-level key of the data, the patch or `more` is a wildcard. Then the merge treats
    /// each top-level member on its own (step 1 per key, no step 2 at the top, step 3 per key), so merging
    /// the two patches at once leaves every member as merging them in turn does. A second `add` of new
    /// members (a second rule's) then stays on the tape instead of making a tree of the whole event.
    public func adding(_ more: ValueObject, overwrite: Bool) -> DataOverlay? {
        guard overwrite == self.overwrite else { return nil }
        var combined = patch
        for (key, value) in more {
            var k = key
            guard k.utf8.allSatisfy({ $0 < 0x80 }), k.withUTF8({ EventDataMerge.wildcardStart($0) }) == nil,
                combined.index(forKey: key) == nil
            else { return nil }
            combined.appendNew(key: key, value: value)
        }
        for key in patch.keys {
            var k = key
            if k.withUTF8({ EventDataMerge.wildcardStart($0) }) != nil { return nil }
        }
        let separate = base.withUnsafeView { view -> Bool in
            guard view.nodes[0].kind == .object else { return false }
            var j = 1
            for _ in 0..<Int(view.nodes[0].count) {
                if EventDataMerge.wildcardStart(view.bytes(j)) != nil { return false }
                j = view.next(j + 1)
            }
            for key in more.keys {
                var k = key
                if k.withUTF8({ view.member(of: 0, key: $0) }) != nil { return false }
            }
            return true
        }
        return separate ? DataOverlay(base: base, patch: combined, overwrite: overwrite) : nil
    }

    /// Appends the merged object as JSON, from the tape and the patch: what the merge leaves as it was read
    /// is copied from the text as written, and only what it changes is encoded, compact. It reads as
    /// `object()`, and it is the bytes `JSONWriter` writes for `object()` when the text read was compact
    /// JSON as a JSON writer writes it. A text over several lines is written compact throughout (a line of
    /// JSON-lines output must stay one line).
    public func write(to out: inout [UInt8]) {
        let mark = out.count
        let text = base.isJSONText && !base.text.withUnsafeBufferPointer(Self.hasLineBreak) ? 0..<base.text.count : nil
        let done = base.withUnsafeView { $0.writeMerged(0, patch, overwrite: overwrite, verbatim: text, to: &out) }
        if !done {
            // Wildcard or non-ASCII patch keys: the reference's tree.
            out.removeSubrange(mark...)
            JSONWriter.writeCompact(object(), to: &out)
        }
    }

    /// Whether `text` holds a line feed or a carriage return (`memchr`: many bytes per step).
    private static func hasLineBreak(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress, !text.isEmpty else { return false }
        return memchr(base, 0x0A, text.count) != nil || memchr(base, 0x0D, text.count) != nil
    }

    /// Whether the merge changes the data: `object() != base.object()`, answered from the bytes of the
    /// two where that is exact. The merge only ever adds members, drops null ones, lengthens arrays and
    /// (under `overwrite`) replaces values; with no replacement, equal text is equal data and different
    /// text different data. A replacement may change the text alone (`0.0` for `-0.0`, a string for a
    /// canonically equivalent one), so then different text is checked on the trees.
    public func changesData() -> Bool {
        var merged: [UInt8] = []
        var plain: [UInt8] = []
        merged.reserveCapacity(base.text.count + 64)
        plain.reserveCapacity(base.text.count)
        base.writeCompact(to: &plain)
        let exact = base.withUnsafeView { $0.writeMerged(0, patch, overwrite: overwrite, to: &merged) }
        guard exact else { return object() != base.object() }
        if merged == plain { return false }
        return overwrite ? object() != base.object() : true
    }

    /// Whether member `key` of the merged object may differ from the data's: false only when it is
    /// certainly the same (the patch does not name it, and the merge's cleaning leaves it as it is).
    public func mayChangeMember(_ key: String) -> Bool {
        if patch[key] != nil || !key.utf8.allSatisfy({ $0 < 0x80 }) { return true }
        var name = key
        return base.withUnsafeView { view in
            guard let v = name.withUTF8({ view.member(of: 0, key: $0) }) else { return false }
            // A null member is dropped; an object is cleaned; anything else stays.
            switch view.nodes[v].kind {
            case .null: return true
            case .object: return !view.isClean(v)
            default: return false
            }
        }
    }
}

extension EventDataMerge {
    /// Where the first `[*]` of a key's UTF-8 bytes starts, or nil when it has none: a byte scan, shared
    /// by the tree merge and the tape writer's merge.
    @inline(__always)
    static func wildcardStart(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
        guard key.count >= 3 else { return nil }
        var i = 0
        while i + 2 < key.count {
            if key[i] == 0x5B && key[i + 1] == 0x2A && key[i + 2] == 0x5D { return i }
            i += 1
        }
        return nil
    }
}
