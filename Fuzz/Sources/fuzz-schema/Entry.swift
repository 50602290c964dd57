// The fuzz-schema target: libFuzzer's driver, started from this program's main, calls the oracle
// (SchemaOracle, in FuzzSupport) with each input.
import CFuzzer
import FuzzSupport

@main
struct Fuzz {
    static func main() {
        Fuzzer.run { SchemaOracle.check($0) }
    }
}
