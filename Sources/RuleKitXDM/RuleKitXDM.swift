// RuleKitXDM is XDM: the schemas of known classes and field groups (`Schemas/`), a JSON Schema validator
// that keeps payloads aligned with them, and typed data elements read by path.
//   - `JSONSchema/`: the registry (`$id`, `$ref`, meta-schemas), a compiler to `SchemaNode`s, and the
//     validator (draft-07, as the JSON-Schema test suite in `../shared/corpora` judges it);
//   - `XDM/`: `XDMRegistry` over a schema folder, `XDMPathCatalog` (every path of a class, for lint and
//     completion), coercion of values to their XDM types.
// Pointer code (tape instances, glob matching, member names) sits with the validator it serves, in `JSONSchema/`, each file opening with its invariants.
