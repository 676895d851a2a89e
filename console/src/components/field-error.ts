// A refusal that names the field it is about, found before the round trip (a form's own check) or
// named by the server (`data.field` of an input refusal): the form marks that field invalid and puts
// the sentence beside it.

export class FieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Where JSON.parse stopped, as a person counts: line and column, from the position its message names. */
export function jsonErrorAt(text: string, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  const position = /position (\d+)/.exec(reason);
  if (!position) return reason;
  const before = text.slice(0, Number(position[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `line ${line}, column ${column} (${reason.replace(/ in JSON at position \d+.*$/, "")})`;
}

/** The JSON object typed into `field`, or the FieldError that says where it stops being one. */
export function jsonObject(field: string, text: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new FieldError(field, `${what} is not JSON: ${jsonErrorAt(text, error)}.`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new FieldError(field, `${what} must be a JSON object ({ ... }).`);
  return parsed as Record<string, unknown>;
}
