// The fuzz-template target: libFuzzer's driver, started from this program's main, calls the oracle
// (TemplateOracle, in FuzzSupport) with each input.
import CFuzzer
import FuzzSupport

@main
struct Fuzz {
    static func main() {
        Fuzzer.run { TemplateOracle.check($0) }
    }
}
