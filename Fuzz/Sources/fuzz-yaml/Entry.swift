// The fuzz-yaml target: libFuzzer's driver, started from this program's main, calls the oracle
// (YAMLOracle, in FuzzSupport) with each input.
import CFuzzer
import FuzzSupport

@main
struct Fuzz {
    static func main() {
        Fuzzer.run { YAMLOracle.check($0) }
    }
}
