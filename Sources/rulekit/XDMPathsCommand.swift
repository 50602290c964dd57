import ArgumentParser
import Foundation
import RuleKitCore
import RuleKitXDM

/// `rulekit xdm paths`: a class's leaf paths with their types.
struct XDMPathsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paths",
        abstract: "List every leaf path of an XDM class with field groups, with its type.",
        discussion: """
            Example:
              rulekit xdm paths --class https://rulekit.dev/xdm/sdk/experienceevent \\
                --mixin https://rulekit.dev/xdm/sdk/web-details
            """
    )

    @OptionGroup var xdm: XDMClassOptions

    func validate() throws {
        if xdm.classID == nil { throw ValidationError("xdm paths needs --class (with --mixin for field groups)") }
    }

    func run() throws {
        guard let classID = xdm.classID else { throw ExitCode(2) }
        let (_, catalog) = try xdm.compose(classID)
        var out = StdoutBuffer()
        for p in catalog.paths {
            out.write("\(p.path)\t\(p.type)\(p.format.map { " (\($0))" } ?? "")\n")
        }
        out.flush()
    }
}
