// The fuzz-launch-json target: libFuzzer's driver, started from this program's main, calls the oracle
// (LaunchJSONOracle, in FuzzSupport) with each input.
import CFuzzer
import FuzzSupport

@main
struct Fuzz {
    static func main() {
        Fuzzer.run { LaunchJSONOracle.check($0) }
    }
}
