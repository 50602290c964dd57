// The fuzz-json target: libFuzzer's driver, started from this program's main, calls the oracle
// (JSONOracle, in FuzzSupport) with each input.
import CFuzzer
import FuzzSupport

@main
struct Fuzz {
    static func main() {
        Fuzzer.run { JSONOracle.check($0) }
    }
}
