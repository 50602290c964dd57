/// Bounds that keep a reader's time and memory finite on hostile input.
///
/// Every reader checks them as it goes and stops with an `input.limit-exceeded` diagnostic naming the
/// limit, so an alias bomb, a million nested brackets or a gigabyte scalar costs a bounded amount.
public struct ReaderLimits: Sendable, Hashable {
    /// Deepest nesting of arrays/objects.
    public var maxDepth: Int
    /// Largest input accepted, in bytes.
    public var maxDocumentBytes: Int
    /// Largest single string or scalar, in bytes.
    public var maxScalarBytes: Int
    /// Most nodes a document may produce, counting every node an alias expands to.
    public var maxNodes: Int
    /// Most nodes that aliases may add to a YAML document, as a multiple of the nodes written out in
    /// it (never less than `aliasNodeFloor`): anchors that nest (each level reusing the one below ten
    /// times) stay far under `maxNodes` in a few hundred bytes yet expand geometrically.
    public var maxAliasExpansion: Int
    /// Alias expansion always allowed, whatever the document's size.
    public var aliasNodeFloor: Int
    /// Largest single record (line) of a JSON-lines stream, in bytes: one event.
    public var maxRecordBytes: Int

    /// Limits for a reader; each defaults to the value documented on its property.
    public init(
        maxDepth: Int = 256, maxDocumentBytes: Int = 512 << 20, maxScalarBytes: Int = 32 << 20,
        maxNodes: Int = 20_000_000, maxAliasExpansion: Int = 10, aliasNodeFloor: Int = 10_000,
        maxRecordBytes: Int = 64 << 20
    ) {
        self.maxDepth = maxDepth
        self.maxDocumentBytes = maxDocumentBytes
        self.maxScalarBytes = maxScalarBytes
        self.maxNodes = maxNodes
        self.maxAliasExpansion = maxAliasExpansion
        self.aliasNodeFloor = aliasNodeFloor
        self.maxRecordBytes = maxRecordBytes
    }

    /// The limits every reader uses unless given others.
    public static let `default` = ReaderLimits()
}
