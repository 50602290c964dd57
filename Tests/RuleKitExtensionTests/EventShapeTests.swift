import RuleKitCore
import Testing

@testable import RuleKitExtension

/// The one check of an input event's shape: each problem with its message and pointer, and none for an event.
@Suite struct EventShapeTests {
    @Test(
        arguments: [
            (#"{"type":"t","source":"s"}"#, nil, ""),
            (#"{"type":"t","source":"s","id":"x","name":"n","data":{},"mask":["a"]}"#, nil, ""),
            (#"[1]"#, "an event must be a JSON object, not an array", ""),
            (
                #"{"type":"t","source":"s","zeta":1,"beta":2}"#, "unknown member 'beta' (an event has id, name, type, source, data, mask)",
                "/beta"
            ),
            (#"{"type":"t","source":"s","a/b":1}"#, "unknown member 'a/b' (an event has id, name, type, source, data, mask)", "/a~1b"),
            (#"{"source":"s"}"#, "an event needs a string 'type'", "/type"),
            (#"{"type":"t"}"#, "an event needs a string 'source'", "/source"),
            (#"{"type":1,"source":"s"}"#, "'type' must be a string, not a number", "/type"),
            (#"{"type":"t","source":null}"#, "'source' must be a string, not null", "/source"),
            (#"{"type":"t","source":"s","id":true}"#, "'id' must be a string, not a boolean", "/id"),
            (#"{"type":"t","source":"s","name":{}}"#, "'name' must be a string, not an object", "/name"),
            (#"{"type":"t","source":"s","data":"str"}"#, "'data' must be an object, not a string", "/data"),
            (#"{"type":"t","source":"s","mask":"a"}"#, "'mask' must be an array of strings, not a string", "/mask"),
            (#"{"type":"t","source":"s","mask":["a",2]}"#, "'mask' must hold strings, not a number", "/mask/1"),
        ] as [(String, String?, String)])
    func eachProblemIsNamedWhereItIs(_ json: String, _ message: String?, _ pointer: String) throws {
        let problem = EventShape.problem(try JSONReader.value(json))
        #expect(problem?.message == message)
        if message != nil { #expect(problem?.pointer == pointer) }
    }

    @Test func dataTheReaderTookIntoATapeIsNotLookedFor() throws {
        #expect(EventShape.problem(try JSONReader.value(#"{"type":"t","source":"s","data":"str"}"#), dataInTape: true) == nil)
    }
}
