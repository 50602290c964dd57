public import RuleKitCore

/// One validation failure: where in the instance, which schema keyword, and why.
public struct ValidationError: Sendable, Hashable, CustomStringConvertible {
    /// JSON pointer into the instance (`/xdm:device/xdm:screenHeight`; "" for the root).
    public var instancePath: String
    /// Where the failing keyword is (`<schema uri>#<pointer>/<keyword>`).
    public var schemaPath: String
    /// What the keyword requires that the instance lacks.
    public var message: String

    /// `pointer: message`.
    public var description: String { "\(instancePath.isEmpty ? "/" : instancePath): \(message)" }
}

/// A JSON Schema (draft-07, and draft-06 which XDM declares) compiled once into a graph of checks.
///
/// `isValid` answers fast (it stops at the first failure); `validate` lists every error with its instance
/// path, up to a cap. Identical applications of a referenced subschema at one instance location are
/// evaluated once per validation.
///
/// ```swift
/// var registry = SchemaRegistry()
/// registry.add(schema, uri: "https://example.com/order")
/// let validator = try JSONSchemaValidator(registry: registry, uri: "https://example.com/order")
/// validator.validate(payload)   // [] when valid
/// ```
public final class JSONSchemaValidator: Sendable {
    let root: SchemaNode
    /// Whether `format` is an assertion (RuleKit's default) or only an annotation.
    public let assertFormats: Bool

    /// Compiles the schema registered as `uri`; a schema that cannot compile throws.
    ///
    /// - Parameters:
    ///   - registry: the schemas `$ref`s resolve in.
    ///   - uri: the schema to compile.
    ///   - assertFormats: whether `format` is an assertion.
    /// - Throws: `SchemaError` when the schema cannot compile.
    public init(registry: SchemaRegistry, uri: String, assertFormats: Bool = true) throws(SchemaError) {
        var compiler = SchemaCompiler(registry: registry)
        root = try compiler.compile(uri: uri)
        try InPlaceChains.check(root)
        AllOfMerger.run(root)
        self.assertFormats = assertFormats
    }

    /// Compiles a standalone schema (its `$ref`s may point inside it, or into `registry`).
    ///
    /// - Parameters:
    ///   - schema: the schema document.
    ///   - registry: the schemas its `$ref`s may point into.
    ///   - assertFormats: whether `format` is an assertion.
    /// - Throws: `SchemaError` when the schema cannot compile.
    public convenience init(schema: Value, registry: SchemaRegistry = SchemaRegistry(), assertFormats: Bool = true)
        throws(SchemaError)
    {
        var r = registry
        let uri = r.add(schema, uri: "urn:rulekit:schema:root")
        try self.init(registry: r, uri: uri, assertFormats: assertFormats)
    }

    /// Whether `instance` is valid, stopping at the first error.
    ///
    /// - Parameter instance: the value checked.
    /// - Returns: whether it is valid.
    public func isValid(_ instance: Value) -> Bool {
        var run = Run<Value>(collect: false, maxErrors: 0, formats: assertFormats)
        return run.check(root, instance)
    }

    /// Every error (up to `maxErrors`), in instance order as found.
    ///
    /// - Parameters:
    ///   - instance: the value checked.
    ///   - maxErrors: the most errors returned.
    /// - Returns: the errors (empty: valid).
    public func validate(_ instance: Value, maxErrors: Int = 100) -> [ValidationError] {
        var run = Run<Value>(collect: true, maxErrors: maxErrors, formats: assertFormats)
        _ = run.check(root, instance)
        return run.errors
    }

    /// Whether the object a tape holds is valid, read from the tape in place (the same verdict as
    /// `isValid(.object(tape.object()))`, without making that object).
    ///
    /// - Parameter tape: the parsed object.
    /// - Returns: whether it is valid.
    public func isValid(_ tape: JSONTape) -> Bool { isValid(tape, node: 0) }

    /// Every error of the object a tape holds (as `validate(.object(tape.object()))`). Most instances are
    /// valid: the tape answers those; only an invalid one is made into a `Value` for its errors.
    ///
    /// - Parameters:
    ///   - tape: the parsed object.
    ///   - maxErrors: the most errors returned.
    /// - Returns: the errors (empty: valid).
    public func validate(_ tape: JSONTape, maxErrors: Int = 100) -> [ValidationError] {
        if isValid(tape) { return [] }
        return validate(.object(tape.object()), maxErrors: maxErrors)
    }
}

/// One validation pass.
struct Run<Instance: ValidationInstance> {
    let collect: Bool
    let maxErrors: Int
    let formats: Bool
    var errors: [ValidationError] = []
    var path: [PathComponent] = []
    /// The id of the instance location at each depth, for the memo of reference applications: ids are
    /// handed out per (parent location, step), so two locations have the same id only if they are the same
    /// location (a hash of the path could collide, and a collision would give another location's verdict).
    var signature: [UInt64] = [0]
    var locationIDs: [LocationStep: UInt64] = [:]
    var memo: [MemoKey: Bool] = [:]

    struct LocationStep: Hashable {
        var parent: UInt64
        var step: PathComponent
    }

    struct MemoKey: Hashable {
        var node: ObjectIdentifier
        var location: UInt64
        var depth: Int
    }

    init(collect: Bool, maxErrors: Int, formats: Bool) {
        self.collect = collect
        self.maxErrors = maxErrors
        self.formats = formats
    }

    var pointer: String { path.jsonPointer }

    mutating func fail(_ node: SchemaNode, _ keyword: String, _ message: @autoclosure () -> String) {
        guard collect, errors.count < maxErrors else { return }
        errors.append(ValidationError(instancePath: pointer, schemaPath: node.location + "/" + keyword, message: message()))
    }

    mutating func push(_ component: @autoclosure () -> PathComponent) {
        // Locations matter only when reporting: a verdict-only run memoizes by value identity instead
        // (see `apply(.ref)`), so it tracks nothing here (and a tape's key is not made into a string).
        guard collect else { return }
        let c = component()
        path.append(c)
        let step = LocationStep(parent: signature[signature.count - 1], step: c)
        if let id = locationIDs[step] {
            signature.append(id)
        } else {
            let id = UInt64(locationIDs.count + 1)
            locationIDs[step] = id
            signature.append(id)
        }
    }

    mutating func pop() {
        guard collect else { return }
        path.removeLast()
        signature.removeLast()
    }

    /// A branch evaluated only for its verdict (inside anyOf, oneOf, not, if, contains).
    mutating func quietly(_ node: SchemaNode, _ v: Instance) -> Bool {
        if !collect { return check(node, v) }
        var q = Run(collect: false, maxErrors: 0, formats: formats)
        q.path = path
        q.signature = signature
        return q.check(node, v)
    }

    mutating func check(_ node: SchemaNode, _ v: Instance) -> Bool {
        if let c = node.constant {
            if !c { fail(node, "false", "no value is valid here (false schema)") }
            return c
        }
        var ok = true
        for check in node.checks {
            if !apply(check, node, v) {
                ok = false
                if !collect || errors.count >= maxErrors { return false }
            }
        }
        return ok
    }

    mutating func apply(_ c: Check, _ node: SchemaNode, _ v: Instance) -> Bool {
        switch c {
        case .ref(let refNode):
            guard let target = refNode.target else { return true }
            // Only a target referenced from several places can be applied twice at one location.
            if target.referenceCount < 2 { return check(target, v) }
            let key: MemoKey
            if collect {
                key = MemoKey(node: ObjectIdentifier(target), location: signature[signature.count - 1], depth: signature.count)
            } else {
                // A verdict depends only on the schema and the value: an object or array is identified by
                // its storage (values do not change during a run), wherever it sits. Scalars are cheap to
                // check again and are not memoized.
                guard let id = v.identity else { return check(target, v) }
                key = MemoKey(node: ObjectIdentifier(target), location: id, depth: -1)
            }
            if let known = memo[key] { return known }
            let r = check(target, v)
            memo[key] = r
            return r
        case .type(let t):
            if t.admits(v) { return true }
            fail(node, "type", "expected \(t.names.joined(separator: " or ")), found \(RunSupport.typeName(v.asValue))")
            return false
        case .enumeration(let box):
            let values = box.value
            let x = v.asValue
            if values.contains(where: { RunSupport.equal($0, x) }) { return true }
            fail(
                node, "enum",
                "\(RunSupport.brief(x)) is not one of \(values.prefix(8).map(RunSupport.brief).joined(separator: ", "))\(values.count > 8 ? ", ..." : "")"
            )
            return false
        case .constant(let box):
            let x = box.value
            let y = v.asValue
            if RunSupport.equal(x, y) { return true }
            fail(node, "const", "expected \(RunSupport.brief(x)), found \(RunSupport.brief(y))")
            return false
        case .multipleOf(let m):
            guard let x = v.number else { return true }
            if RunSupport.isMultiple(x, of: m, integer: v.integer) { return true }
            fail(node, "multipleOf", "\(RunSupport.brief(v.asValue)) is not a multiple of \(m)")
            return false
        case .maximum(let m, let exclusive):
            guard let x = v.number else { return true }
            if exclusive ? x < m : x <= m { return true }
            fail(
                node, exclusive ? "exclusiveMaximum" : "maximum",
                "\(RunSupport.brief(v.asValue)) is \(exclusive ? "not below" : "above") \(m)")
            return false
        case .minimum(let m, let exclusive):
            guard let x = v.number else { return true }
            if exclusive ? x > m : x >= m { return true }
            fail(
                node, exclusive ? "exclusiveMinimum" : "minimum",
                "\(RunSupport.brief(v.asValue)) is \(exclusive ? "not above" : "below") \(m)")
            return false
        case .maxLength(let n):
            guard let s = v.text else { return true }
            if s.unicodeScalars.count <= n { return true }
            fail(node, "maxLength", "string is longer than \(n) characters")
            return false
        case .minLength(let n):
            guard let s = v.text else { return true }
            if s.unicodeScalars.count >= n { return true }
            fail(node, "minLength", "string is shorter than \(n) characters")
            return false
        case .pattern(let p):
            guard let s = v.text else { return true }
            if p.matches(s) { return true }
            fail(node, "pattern", "\(RunSupport.brief(v.asValue)) does not match /\(p.source)/")
            return false
        case .format(let kind):
            guard formats, let s = v.text else { return true }
            if Formats.check(kind, s) { return true }
            fail(node, "format", "\(RunSupport.brief(v.asValue)) is not a valid \(kind.rawValue)")
            return false
        case .items(let item):
            guard v.kind == .array else { return true }
            var ok = true
            for (i, x) in v.elements.enumerated() {
                push(.index(i))
                if !check(item, x) { ok = false }
                pop()
                if !ok && (!collect || errors.count >= maxErrors) { break }
            }
            return ok
        case .tupleItems(let box):
            let tuple = box.value.items
            let additional = box.value.additional
            guard v.kind == .array else { return true }
            var ok = true
            for (i, x) in v.elements.enumerated() {
                let schema = i < tuple.count ? tuple[i] : additional
                guard let schema else { break }
                push(.index(i))
                if !check(schema, x) { ok = false }
                pop()
                if !ok && !collect { break }
            }
            return ok
        case .maxItems(let n):
            guard v.kind == .array else { return true }
            if v.size <= n { return true }
            fail(node, "maxItems", "more than \(n) items")
            return false
        case .minItems(let n):
            guard v.kind == .array else { return true }
            if v.size >= n { return true }
            fail(node, "minItems", "fewer than \(n) items")
            return false
        case .uniqueItems:
            guard v.kind == .array, v.size > 1, case .array(let a) = v.asValue else { return true }
            for i in 1..<a.count where a[..<i].contains(where: { RunSupport.equal($0, a[i]) }) {
                fail(node, "uniqueItems", "items are not unique (item \(i) repeats an earlier one)")
                return false
            }
            return true
        case .contains(let schema):
            guard v.kind == .array else { return true }
            for (i, x) in v.elements.enumerated() {
                push(.index(i))
                let hit = quietly(schema, x)
                pop()
                if hit { return true }
            }
            fail(node, "contains", "no item matches the 'contains' schema")
            return false
        case .maxProperties(let n):
            guard v.kind == .object else { return true }
            if v.size <= n { return true }
            fail(node, "maxProperties", "more than \(n) properties")
            return false
        case .minProperties(let n):
            guard v.kind == .object else { return true }
            if v.size >= n { return true }
            fail(node, "minProperties", "fewer than \(n) properties")
            return false
        case .required(let box):
            let names = box.value
            guard v.kind == .object else { return true }
            var ok = true
            for n in names where !v.hasMember(n) {
                fail(node, "required", "missing required property '\(n)'")
                ok = false
                if !collect { break }
            }
            return ok
        case .properties(let box):
            guard v.kind == .object else { return true }
            // One read of the boxed info for the whole object, not one per key.
            let info = box.value
            let byName = info.byName
            let patterns = info.patterns
            let additional = info.additional
            var ok = true
            for (key, x) in v.members {
                var matched = false
                if let s = key.lookup(in: byName) {
                    matched = true
                    push(.key(key.name))
                    if !check(s, x) { ok = false }
                    pop()
                }
                if !patterns.isEmpty {
                    // The key's text, made only when a pattern must read it (a tape's key is bytes).
                    var text: String?
                    var lineTerminator: Bool?
                    key.withNameBytes { bytes in
                        info.prefixes.forEachMatch(bytes) { i in
                            // A further match of an always-true subschema changes nothing.
                            let trivial = patterns[i].1.constant == true
                            if matched && trivial { return }
                            if lineTerminator == nil { lineTerminator = Pattern.hasLineTerminator(bytes) }
                            if lineTerminator! {
                                let k = text ?? key.name
                                text = k
                                if !patterns[i].0.matches(k) { return }
                            }
                            matched = true
                            if trivial { return }
                            push(.key(key.name))
                            if !check(patterns[i].1, x) { ok = false }
                            pop()
                        }
                    }
                    if !info.others.isEmpty {
                        var present: (UInt64, UInt64)?
                        var subject: PatternSubject?
                        for (j, i) in info.others.enumerated() {
                            let trivial = patterns[i].1.constant == true
                            if matched && trivial { continue }
                            let have = present ?? key.withNameBytes { RunSupport.byteSet($0) }
                            present = have
                            let need = info.othersNeed[j]
                            if have.0 & need.0 != need.0 || have.1 & need.1 != need.1 { continue }
                            if subject == nil {
                                let k = text ?? key.name
                                text = k
                                subject = PatternSubject(k)
                            }
                            guard patterns[i].0.matches(subject!) else { continue }
                            matched = true
                            if trivial { continue }
                            push(.key(key.name))
                            if !check(patterns[i].1, x) { ok = false }
                            pop()
                        }
                    }
                }
                if !matched, let additional {
                    if additional.constant == false {
                        push(.key(key.name))
                        fail(node, "additionalProperties", "property '\(key.name)' is not allowed")
                        pop()
                        ok = false
                    } else {
                        push(.key(key.name))
                        if !check(additional, x) { ok = false }
                        pop()
                    }
                }
                if !ok && (!collect || errors.count >= maxErrors) { return false }
            }
            return ok
        case .dependencies(let box):
            let deps = box.value
            guard v.kind == .object else { return true }
            var ok = true
            for (k, names, schema) in deps where v.hasMember(k) {
                if let names {
                    for n in names where !v.hasMember(n) {
                        fail(node, "dependencies", "property '\(k)' requires property '\(n)'")
                        ok = false
                    }
                }
                if let schema, !check(schema, v) { ok = false }
            }
            return ok
        case .propertyNames(let schema):
            guard v.kind == .object else { return true }
            // A name is checked as a string instance, a `Value` whatever the object is.
            var names = Run<Value>(collect: false, maxErrors: 0, formats: formats)
            for (key, _) in v.members where !names.check(schema, .string(key.name)) {
                let k = key.name
                fail(node, "propertyNames", "property name '\(k)' is not valid")
                return false
            }
            return true
        case .conditional(let box):
            let ifSchema = box.value.condition
            let thenSchema = box.value.then
            let elseSchema = box.value.otherwise
            if quietly(ifSchema, v) {
                return thenSchema.map { check($0, v) } ?? true
            }
            return elseSchema.map { check($0, v) } ?? true
        case .allOf(let box):
            let schemas = box.value
            var ok = true
            for s in schemas where !check(s, v) {
                ok = false
                if !collect { return false }
            }
            return ok
        case .anyOf(let box):
            let schemas = box.value
            for s in schemas where quietly(s, v) { return true }
            fail(node, "anyOf", "matches none of the \(schemas.count) 'anyOf' schemas")
            return false
        case .oneOf(let box):
            let schemas = box.value
            var hits = 0
            for s in schemas where quietly(s, v) {
                hits += 1
                if hits > 1 { break }
            }
            if hits == 1 { return true }
            fail(node, "oneOf", hits == 0 ? "matches none of the 'oneOf' schemas" : "matches more than one 'oneOf' schema")
            return false
        case .not(let schema):
            if !quietly(schema, v) { return true }
            fail(node, "not", "must not match the 'not' schema")
            return false
        }
    }
}

/// What `Run` needs that does not depend on the instance's representation.
enum RunSupport {
    static func typeName(_ v: Value) -> String {
        switch v {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double(let d): d.rounded() == d ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    static func brief(_ v: Value) -> String {
        let s = JSONWriter.string(v)
        return s.count > 60 ? String(s.prefix(57)) + "..." : s
    }

    /// JSON Schema equality: numbers by value (1 == 1.0), objects regardless of key order, strings by
    /// code points (not Swift's canonical equivalence: "é" and "e\u{301}" differ).
    static func equal(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return RunSupport.sameUTF8(x, y)
        case (.int(let x), .int(let y)): return x == y
        case (.int(let x), .double(let y)), (.double(let y), .int(let x)): return Double(x) == y
        case (.double(let x), .double(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            for (k, v) in x {
                guard let w = y[k], equal(v, w) else { return false }
            }
            return true
        default: return false
        }
    }

    /// Whether two strings have the same code points (their UTF-8 bytes compared, not as `==` does).
    static func sameUTF8(_ a: String, _ b: String) -> Bool {
        var b = b
        return b.withUTF8 { sameUTF8(a, $0) }
    }

    static func isMultiple(_ x: Double, of m: Double, integer: Int64?) -> Bool {
        if let i = integer, m.rounded() == m, abs(m) < 9e18, m != 0 { return i % Int64(m) == 0 }
        let q = x / m
        if !q.isFinite { return false }
        return abs(q - q.rounded()) < 1e-9 * max(1, abs(q))
    }
}
