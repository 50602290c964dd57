/// The JSON Schema of rule test files (`*.test.yaml`), for editors (`rulekit schema --tests`). The typed
/// loader (`RuleTestFile.load`) is the authority; a test holds the shipped tests valid under both.
public enum RuleTestSchema {
    /// The schema, as JSON text (draft-07).
    public static let json = #"""
        {
          "$schema": "http://json-schema.org/draft-07/schema#",
          "$id": "https://rulekit.dev/schemas/rule-tests.schema.json",
          "title": "RuleKit rule tests",
          "description": "A *.test.yaml file: the rules under test, states, history and cases (rulekit test).",
          "type": "object",
          "required": ["cases"],
          "additionalProperties": false,
          "properties": {
            "rules": {
              "description": "The rules under test, relative to this file (default: the rules file of the same name).",
              "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
            },
            "states": {"$ref": "#/definitions/states"},
            "xdmStates": {"$ref": "#/definitions/states"},
            "history": {"$ref": "#/definitions/history"},
            "cases": {"type": "array", "minItems": 1, "items": {"$ref": "#/definitions/case"}}
          },
          "definitions": {
            "states": {
              "type": "object",
              "description": "Extension name → its shared state.",
              "additionalProperties": {"type": "object"}
            },
            "history": {
              "type": "array",
              "description": "Earlier events, recorded before the case.",
              "items": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                  "name": {"type": "string"}, "type": {"type": "string"}, "source": {"type": "string"},
                  "data": {"type": ["object", "null"]},
                  "ageSeconds": {"type": "number", "minimum": 0}
                }
              }
            },
            "case": {
              "type": "object",
              "required": ["events"],
              "additionalProperties": false,
              "properties": {
                "name": {"type": "string"},
                "states": {"$ref": "#/definitions/states"},
                "xdmStates": {"$ref": "#/definitions/states"},
                "history": {"$ref": "#/definitions/history"},
                "events": {"type": "array", "minItems": 1, "items": {"$ref": "#/definitions/event"}},
                "expect": {"$ref": "#/definitions/expect", "description": "For the whole case: rules fired by any event, the last event's data, every dispatched event."}
              }
            },
            "event": {
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "name": {"type": "string"}, "type": {"type": "string"}, "source": {"type": "string"},
                "data": {"type": ["object", "null"]},
                "mask": {"type": "array", "items": {"type": "string"}, "description": "Keys that record the event in history."},
                "expect": {"$ref": "#/definitions/expect", "description": "For this event: the rules it fired, its data, what it dispatched."}
              }
            },
            "expect": {
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "fired": {"type": "array", "items": {"type": "string"}},
                "notFired": {"type": "array", "items": {"type": "string"}},
                "data": {},
                "dataContains": {},
                "dispatched": {
                  "type": "array",
                  "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {"type": {"type": "string"}, "source": {"type": "string"}, "data": {}}
                  }
                }
              }
            }
          }
        }
        """#
}
