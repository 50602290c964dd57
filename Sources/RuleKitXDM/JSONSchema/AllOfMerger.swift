/// A compile-time pass that merges the members of `allOf` that only declare properties.
///
/// An XDM class composed with field groups is an `allOf` of a dozen schemas that each list some
/// properties of the same object; validated as written, every member walks every key of the instance.
/// Merged, the object's keys are walked once against one property table (a property two members both
/// declare gets an `allOf` of both schemas). Members with any other keyword (a `oneOf`, pattern or
/// additional properties) stay as they are, each applied once. Verdicts and error locations are
/// unchanged; only the schema paths of merged checks differ.
enum AllOfMerger {
    static func run(_ root: SchemaNode) {
        var seen = Set<ObjectIdentifier>()
        var stack = [root]
        while let node = stack.popLast() {
            guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
            node.checks = node.checks.map { merge($0, in: node) }
            for c in node.checks { stack.append(contentsOf: children(c)) }
            if let t = node.target { stack.append(t) }
        }
    }

    /// The members of an allOf, with refs followed and nested allOf-only nodes inlined, deduplicated.
    static func flatten(
        _ nodes: [SchemaNode], into out: inout [SchemaNode], seen: inout Set<ObjectIdentifier>,
        requiresObject: inout Bool, depth: Int = 0
    ) {
        for n in nodes {
            var m = n
            while m.checks.count == 1, case .ref(let r) = m.checks[0], let t = r.target { m = t }
            guard seen.insert(ObjectIdentifier(m)).inserted else { continue }
            // A node that is only `type: object` + `allOf`: inline its members (keeping its type check).
            if depth < 16, m.constant == nil, m.checks.contains(where: { if case .allOf = $0 { true } else { false } }),
                m.checks.allSatisfy({ c in
                    switch c {
                    case .allOf: true
                    case .type(let t): t == .object
                    default: false
                    }
                })
            {
                for c in m.checks {
                    if case .allOf(let box) = c {
                        flatten(box.value, into: &out, seen: &seen, requiresObject: &requiresObject, depth: depth + 1)
                    }
                    if case .type = c { requiresObject = true }
                }
                continue
            }
            out.append(m)
        }
    }

    static func propertiesOnly(_ n: SchemaNode) -> Bool {
        n.constant == nil
            && n.checks.allSatisfy { c in
                switch c {
                case .type(let t): t == .object
                case .required: true
                case .properties(let box): box.value.patterns.isEmpty && box.value.additional == nil
                default: false
                }
            }
    }

    static func merge(_ check: Check, in owner: SchemaNode) -> Check {
        guard case .allOf(let box) = check, box.value.count > 1 else { return check }
        var members: [SchemaNode] = []
        var seen = Set<ObjectIdentifier>()
        var requiresObject = false
        flatten(box.value, into: &members, seen: &seen, requiresObject: &requiresObject)
        let mergeable = members.filter(propertiesOnly)
        guard mergeable.count > 1 else { return check }
        var byName: [String: [SchemaNode]] = [:]
        var order: [String] = []
        var required: [String] = []
        var isObject = requiresObject
        for m in mergeable {
            for c in m.checks {
                switch c {
                case .type: isObject = true
                case .required(let r): required += r.value.filter { !required.contains($0) }
                case .properties(let p):
                    for (k, n) in p.value.byNameEntries {
                        if byName[k] == nil { order.append(k) }
                        byName[k, default: []].append(n)
                    }
                default: break
                }
            }
        }
        let merged = SchemaNode(location: owner.location + "/allOf(merged)")
        var table: [String: SchemaNode] = [:]
        for k in order {
            let nodes = byName[k]!
            if nodes.count == 1 {
                table[k] = nodes[0]
            } else {
                let both = SchemaNode(location: merged.location + "/properties/" + k)
                both.checks = [.allOf(Box(nodes))]
                table[k] = both
            }
        }
        var checks: [Check] = []
        if isObject { checks.append(.type(.object)) }
        if !required.isEmpty { checks.append(.required(Box(required))) }
        checks.append(.properties(Box(PropertiesInfo(byName: table, patterns: [], additional: nil))))
        merged.checks = checks
        let rest = members.filter { !propertiesOnly($0) }
        return .allOf(Box([merged] + rest))
    }

    static func children(_ c: Check) -> [SchemaNode] {
        switch c {
        case .items(let n), .contains(let n), .propertyNames(let n), .not(let n), .ref(let n): [n]
        case .tupleItems(let b): b.value.items + (b.value.additional.map { [$0] } ?? [])
        case .properties(let b): b.value.byNameEntries.map(\.1) + b.value.patterns.map(\.1) + (b.value.additional.map { [$0] } ?? [])
        case .dependencies(let b): b.value.compactMap(\.2)
        case .conditional(let b): [b.value.condition] + [b.value.then, b.value.otherwise].compactMap { $0 }
        case .allOf(let b), .anyOf(let b), .oneOf(let b): b.value
        default: []
        }
    }
}
