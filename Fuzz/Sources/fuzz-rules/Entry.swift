// The fuzz-rules target: libFuzzer's driver, started from this program's main, calls the oracle
// (RulesOracle, in FuzzSupport) with each input.
import CFuzzer
import FuzzSupport

@main
struct Fuzz {
    static func main() {
        Fuzzer.run { RulesOracle.check($0) }
    }
}
