internal import RuleKitCore

/// The converted forms of each slot's value for one pass: its string form lowercased into a byte pool
/// (when ASCII), its integer and double conversions. Each is computed the first time a comparison
/// needs it, then shared by every rule reading that key.
struct SlotForms {
    var stamps: [UInt32] = []
    /// Bit 0: string form ready; bit 1: int ready; bit 2: double ready.
    var ready: [UInt8] = []
    var stringOffset: [Int32] = []
    /// -1 when the string form is not ASCII (comparisons take the String path).
    var stringLength: [Int32] = []
    var ints: [Int64] = []
    var intOK: [Bool] = []
    var doubles: [Double] = []
    var doubleOK: [Bool] = []
    var pool: [UInt8] = []

    mutating func ensure(_ count: Int) {
        guard stamps.count < count else { return }
        let extra = count - stamps.count
        stamps.append(contentsOf: repeatElement(0, count: extra))
        ready.append(contentsOf: repeatElement(0, count: extra))
        stringOffset.append(contentsOf: repeatElement(0, count: extra))
        stringLength.append(contentsOf: repeatElement(0, count: extra))
        ints.append(contentsOf: repeatElement(0, count: extra))
        intOK.append(contentsOf: repeatElement(false, count: extra))
        doubles.append(contentsOf: repeatElement(0, count: extra))
        doubleOK.append(contentsOf: repeatElement(false, count: extra))
    }
}
