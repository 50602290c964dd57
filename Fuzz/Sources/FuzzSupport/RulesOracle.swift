public enum RulesOracle {
    public static func check(_ bytes: [UInt8]) {}
}
