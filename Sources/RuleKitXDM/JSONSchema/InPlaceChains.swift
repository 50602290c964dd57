/// A compile-time bound on how deep validation recurses at one instance location.
///
/// `$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else` and schema `dependencies` apply a
/// subschema to the same value. A cycle of them (`{"$ref": "#"}`, two definitions that refer to each
/// other, `{"anyOf": [{"$ref": "#"}]}`) would recurse forever, and a long acyclic chain of them (a
/// thousand definitions each referring to the next) would exhaust the stack; both are refused when the
/// schema is compiled, with the locations of the chain. Keywords that descend into the instance
/// (`properties`, `items`, `contains`, `propertyNames`, ...) end a chain: their recursion is bounded by
/// the instance's depth, which the readers bound.
enum InPlaceChains {
    /// Longest chain of in-place applications allowed.
    static let maxLength = 64

    /// Throws when some node starts a cycle or a chain longer than `maxLength`. Iterative: the schema
    /// graph is user data, so no recursion over it.
    static func check(_ root: SchemaNode, maxLength: Int = maxLength) throws(SchemaError) {
        // Longest chain starting at each finished node; nodes on the current path are `onPath`.
        var length: [ObjectIdentifier: Int] = [:]
        var onPath = Set<ObjectIdentifier>()
        var starts: [SchemaNode] = [root]
        struct Frame {
            let node: SchemaNode
            let next: [SchemaNode]
            var index = 0
            var longest = 0
        }
        while let start = starts.popLast() {
            if length[ObjectIdentifier(start)] != nil { continue }
            var path: [Frame] = [Frame(node: start, next: inPlace(start, descending: &starts))]
            onPath.insert(ObjectIdentifier(start))
            while !path.isEmpty {
                let top = path.count - 1
                if path[top].index < path[top].next.count {
                    let child = path[top].next[path[top].index]
                    path[top].index += 1
                    let id = ObjectIdentifier(child)
                    if let known = length[id] {
                        path[top].longest = max(path[top].longest, known)
                        continue
                    }
                    if onPath.contains(id) {
                        let cycle = path.map(\.node.location).drop { $0 != child.location } + [child.location]
                        throw SchemaError(
                            message:
                                "schema cycle that never descends into the instance: \(cycle.suffix(8).joined(separator: " -> "))")
                    }
                    onPath.insert(id)
                    path.append(Frame(node: child, next: inPlace(child, descending: &starts)))
                    if path.count > maxLength {
                        throw SchemaError(
                            message:
                                "schema chain of more than \(maxLength) in-place references (\(path[0].node.location) -> ... -> \(child.location))"
                        )
                    }
                    continue
                }
                let done = path.removeLast()
                let l = done.longest + 1
                length[ObjectIdentifier(done.node)] = l
                onPath.remove(ObjectIdentifier(done.node))
                if l > maxLength {
                    throw SchemaError(
                        message:
                            "schema chain of more than \(maxLength) in-place references from \(done.node.location)")
                }
                if let parent = path.indices.last { path[parent].longest = max(path[parent].longest, l) }
            }
        }
    }

    /// The nodes `node` applies to the same value; those it applies to parts of the value go to
    /// `descending`, to be checked as chains of their own.
    static func inPlace(_ node: SchemaNode, descending: inout [SchemaNode]) -> [SchemaNode] {
        var out: [SchemaNode] = []
        if let t = node.target { out.append(t) }
        for c in node.checks {
            switch c {
            case .ref(let n), .not(let n): out.append(n)
            case .allOf(let b), .anyOf(let b), .oneOf(let b): out += b.value
            case .conditional(let b): out += [b.value.condition] + [b.value.then, b.value.otherwise].compactMap { $0 }
            case .dependencies(let b): out += b.value.compactMap(\.2)
            default: descending += AllOfMerger.children(c)
            }
        }
        return out
    }
}
