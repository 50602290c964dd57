/// The JSON Schema of RuleKit's YAML rules format, for editors (`rulekit schema` prints it; the same text
/// is `docs/rules-format.schema.json`, and a test keeps the two equal).
public enum RulesFormatSchema {
    /// The schema, as JSON text (draft-07).
    public static let json = #"""
        {
          "$schema": "http://json-schema.org/draft-07/schema#",
          "$id": "https://rulekit.dev/schemas/rules-format.schema.json",
          "title": "RuleKit rules",
          "description": "RuleKit's YAML rules format (docs/rules-format.md).",
          "type": "object",
          "required": ["rules"],
          "additionalProperties": false,
          "properties": {
            "version": {"type": "integer", "description": "Rule set version (Launch 'version')."},
            "format": {"type": "string"},
            "dataElements": {
              "type": "object",
              "description": "Named key paths: %name% in matcher keys, {%%name%%} in tokens.",
              "additionalProperties": {
                "oneOf": [
                  {"type": "string", "description": "The key path."},
                  {
                    "type": "object",
                    "required": ["path"],
                    "additionalProperties": false,
                    "properties": {
                      "path": {"type": "string"},
                      "type": {"enum": ["string", "int", "double", "bool", "any"]},
                      "description": {"type": "string"}
                    }
                  }
                ]
              }
            },
            "rules": {"type": "array", "items": {"$ref": "#/definitions/rule"}}
          },
          "definitions": {
            "rule": {
              "type": "object",
              "required": ["when", "then"],
              "additionalProperties": false,
              "properties": {
                "id": {"type": "string", "description": "Unique in the file."},
                "name": {"type": "string"},
                "description": {"type": "string"},
                "enabled": {"type": "boolean"},
                "meta": {"type": "object", "properties": {"reEvaluate": {"type": "boolean"}}},
                "when": {"$ref": "#/definitions/condition"},
                "then": {"type": "array", "items": {"$ref": "#/definitions/consequence"}}
              }
            },
            "condition": {
              "oneOf": [
                {"type": "array", "items": {"$ref": "#/definitions/condition"}, "description": "Implicit all."},
                {"type": "object", "required": ["all"], "additionalProperties": false,
                 "properties": {"all": {"type": "array", "items": {"$ref": "#/definitions/condition"}}}},
                {"type": "object", "required": ["any"], "additionalProperties": false,
                 "properties": {"any": {"type": "array", "items": {"$ref": "#/definitions/condition"}}}},
                {"type": "object", "required": ["group"], "additionalProperties": false,
                 "properties": {"group": {"type": "object", "required": ["logic", "conditions"],
                   "properties": {"logic": {"type": "string"}, "conditions": {"type": "array", "items": {"$ref": "#/definitions/condition"}}}}}},
                {"$ref": "#/definitions/matcher"},
                {"type": "object", "required": ["history"], "additionalProperties": false,
                 "properties": {"history": {"type": "object", "required": ["events", "matcher", "value"], "additionalProperties": false,
                   "properties": {
                     "events": {"type": "array", "items": {"type": "object"}},
                     "matcher": {"$ref": "#/definitions/operator"},
                     "value": {"type": "integer"},
                     "from": {"type": "integer", "description": "Epoch milliseconds."},
                     "to": {"type": "integer", "description": "Epoch milliseconds."},
                     "searchType": {"enum": ["any", "ordered", "mostRecent"]}}}}},
                {"type": "object", "required": ["type", "definition"], "description": "The Launch form.",
                 "properties": {"type": {"enum": ["group", "matcher", "historical"]}, "definition": {"type": "object"}}}
              ]
            },
            "operator": {"enum": [\#(operatorList)]},
            "scalar": {"type": ["string", "number", "boolean"]},
            "values": {"oneOf": [{"$ref": "#/definitions/scalar"}, {"type": "array", "items": {"$ref": "#/definitions/scalar"}}]},
            "matcher": {
              "type": "object",
              "required": ["key"],
              "properties": {
                "key": {"type": "string", "description": "A key path: a.b.0.c, ~type, ~source, ~state.<ext>/<path>, ~xdm.<ext>/<path>, %element%."},
                "matcher": {"$ref": "#/definitions/operator"},
                "values": {"type": "array"},
                \#(matcherProperties)
              },
              "additionalProperties": false,
              "minProperties": 2,
              "maxProperties": 3
            },
            "consequence": {
              "type": "object",
              "properties": {
                "id": {"type": "string"},
                "add": {"type": "object", "description": "Merged into the event data, keeping existing values."},
                "mod": {"type": "object", "description": "Merged into the event data, overwriting; null deletes."},
                "dispatch": {"type": "object", "required": ["type", "source", "action"], "additionalProperties": false,
                  "properties": {"type": {"type": "string"}, "source": {"type": "string"}, "action": {"enum": ["copy", "new"]},
                                 "data": {"type": "object"}}},
                "history": {"type": "object", "required": ["operation", "content"], "additionalProperties": false,
                  "properties": {"operation": {"enum": ["insert", "insertIfNotExists"]}, "content": {"type": "object", "minProperties": 1}}},
                "type": {"type": "string"},
                "detail": {"type": "object"}
              },
              "additionalProperties": false,
              "oneOf": [
                {"required": ["add"]}, {"required": ["mod"]}, {"required": ["dispatch"]}, {"required": ["history"]},
                {"required": ["type"]}
              ]
            }
          }
        }
        """#

    /// The matcher codes as a JSON list's items, from `Operation` (the one list of them).
    static var operatorList: String { Operation.codes.map { "\"\($0)\"" }.joined(separator: ", ") }

    /// A matcher's short form per code: values for the comparisons, `true` for `ex` and `nx`, from `Operation`.
    static var matcherProperties: String {
        let items = Operation.allCases.map { op in
            let body = op == .exists || op == .notExist ? #"{"const": true}"# : ##"{"$ref": "#/definitions/values"}"##
            return "\"\(op.code)\": \(body)"
        }
        // Two a line, as the schema file is written (the first line's indentation is the text's own).
        return stride(from: 0, to: items.count, by: 2).map { i in items[i..<min(i + 2, items.count)].joined(separator: ", ") }
            .joined(separator: ",\n        ")
    }
}
