public enum LaunchJSONOracle {
    public static func check(_ bytes: [UInt8]) {}
}
