public enum TemplateOracle {
    public static func check(_ bytes: [UInt8]) {}
}
