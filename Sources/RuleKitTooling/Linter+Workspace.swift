internal import Foundation
public import RuleKitCore
internal import RuleKitRules
internal import RuleKitXDM

extension Linter {
    /// Takes XDM checks from the ExperienceEvent class of the schema folder `folder`: false when the folder
    /// has no such class (the checks are then skipped, and the caller says so).
    public mutating func useSchemas(folder: String) throws(DiagnosticError) -> Bool {
        guard let composed = try XDMRegistry(folder: URL(fileURLWithPath: folder)).experienceEvent() else { return false }
        catalog = composed.catalog
        xdmValidator = composed.validator
        return true
    }

    /// Counts the flattened data keys of the example events in `path` (JSON lines) as known keys. A line
    /// that is not JSON, or not an object, is an error located at its line.
    public mutating func addExampleKeys(from path: String) throws(DiagnosticError) {
        let reader = try JSONLinesReader(path: path)
        var iterator = reader.makeIterator()
        while let r = iterator.next() {
            switch r {
            case .success(.object(let event)):
                guard case .object(let data)? = event["data"] else { continue }
                for k in Flatten.object(data, arrays: true).keys {
                    exampleKeys.insert(k)
                    exampleKeys.insert(XDMPathCatalog.normalize(k))
                }
            case .success:
                throw DiagnosticError(
                    .error(
                        .jsonSyntax, "an example event is a JSON object",
                        at: SourceLocation(file: path, line: iterator.lineNumber, column: 1)))
            case .failure(let e):
                throw e
            }
        }
    }
}
