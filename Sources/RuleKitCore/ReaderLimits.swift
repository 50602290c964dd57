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

    public init(maxDepth: Int = 256, maxDocumentBytes: Int = 512 << 20, maxScalarBytes: Int = 32 << 20,
                maxNodes: Int = 20_000_000) {
        self.maxDepth = maxDepth
        self.maxDocumentBytes = maxDocumentBytes
        self.maxScalarBytes = maxScalarBytes
        self.maxNodes = maxNodes
    }

    public static let `default` = ReaderLimits()
}
