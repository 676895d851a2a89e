// Reading and validating request input with the route's zod schema; failures are 400 Refusals whose
// sentence names the field.
import type { z } from "zod";
import type { AppContext } from "./context";
import { Refusal } from "./refusal";

export async function readJson(c: AppContext): Promise<unknown> {
  const text = await c.req.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Refusal("invalid_json");
  }
}

export function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length ? `\`${issue.path.join(".")}\`` : "the body";
  return `${where}: ${issue.message}`;
}

export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  throw new Refusal("invalid_request", first ? `The request is not valid: ${describeIssue(first)}.` : undefined);
}

export const readBody = async <S extends z.ZodType>(c: AppContext, schema: S) => validate(schema, await readJson(c));
