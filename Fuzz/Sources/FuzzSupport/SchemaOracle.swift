public enum SchemaOracle {
    public static func check(_ bytes: [UInt8]) {}
}
