// A form's own check of JSON before the round trip: where it stops being JSON, as a person counts.
import { describe, expect, it } from "vitest";
import { FieldError, jsonErrorAt, jsonObject } from "../../console/src/components/field-error";

describe("jsonObject", () => {
  it("answers the object typed", () => {
    expect(jsonObject("compiled", '{ "steps": ["load"] }', "The compiled form")).toEqual({ steps: ["load"] });
  });

  it("says the line and column where the text stops being JSON, naming the field", () => {
    const text = '{\n  "steps": ["load"],\n  retries: 2\n}';
    const refused = (() => {
      try {
        jsonObject("compiled", text, "The compiled form");
      } catch (error) {
        return error;
      }
    })() as FieldError;
    expect(refused).toBeInstanceOf(FieldError);
    expect(refused.field).toBe("compiled");
    expect(refused.message).toMatch(/^The compiled form is not JSON: line 3, column 3 \(.+\)\.$/);
  });

  it("refuses JSON that is not an object", () => {
    expect(() => jsonObject("compiled", "[1, 2]", "The compiled form")).toThrow("The compiled form must be a JSON object ({ ... }).");
  });
});

describe("jsonErrorAt", () => {
  it("passes on a message that names no position", () => {
    expect(jsonErrorAt("", new SyntaxError("Unexpected end of JSON input"))).toBe("Unexpected end of JSON input");
  });
});
