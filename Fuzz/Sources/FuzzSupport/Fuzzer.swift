// Starting libFuzzer: each target's main hands its oracle here.
import CFuzzer
import Glibc

/// Starts libFuzzer with one oracle as its test-one-input callback.
public enum Fuzzer {
    /// The oracle the driver calls (set once, before the driver starts; libFuzzer runs inputs on one thread).
    nonisolated(unsafe) static var oracle: ([UInt8]) -> Void = { _ in }

    /// Runs libFuzzer with this process's arguments and `oracle` for each input; exits with its status.
    public static func run(_ oracle: @escaping ([UInt8]) -> Void) -> Never {
        Fuzzer.oracle = oracle
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            Fuzzer.oracle(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
            return 0
        }
        exit(status)
    }
}
