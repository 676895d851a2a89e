// What an unexpected failure is, and what of it may be logged. Classified by type and driver fields,
// never by message text; described by class, SQLSTATE, constraint and our own stack frames, never by
// the message (the driver's and drizzle's quote the query's parameters) nor `detail`/`where` (row data).
import { DatabaseUnreachable } from "../../db/neon";
import { LoginRefused } from "../../db/roles";
import { EnvironmentObjectFailed, isDurableObjectError } from "../object-calls";
import type { ErrorCode } from "./catalog";

export type FailureKind = "database_unreachable" | "login_refused" | "durable_object" | "internal";

/** The catalog code each kind answers with (a Durable Object failure is not a database outage). */
export const FAILURE_CODE: Record<FailureKind, ErrorCode> = {
  database_unreachable: "database_unavailable",
  // A login that would bypass row-level security (db/roles.ts): the service refuses to serve, as for a refused variable.
  login_refused: "config_invalid",
  durable_object: "internal_error",
  internal: "internal_error",
};

export interface Diagnosis {
  kind: FailureKind;
  /** The thrown error's class, then its causes' classes. */
  errorClass: string[];
  sqlState?: string;
  constraint?: string;
  /** Our own frames (no dependency's), without the message that heads a stack. */
  frames: string[];
}

interface DriverError {
  severity: string;
  code: string;
  constraint?: unknown;
}

const MAX_CAUSES = 5;
const MAX_FRAMES = 8;

// Connection exceptions (08) and operator intervention that ends sessions (57P01-57P05).
const UNREACHABLE_SQLSTATE = /^(08|57P0)/;

/** The error and its causes, outermost first. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at = error; at != null && chain.length < MAX_CAUSES && !chain.includes(at); at = (at as { cause?: unknown }).cause) chain.push(at);
  return chain;
}

// PostgreSQL's own errors, as the driver hands them over: a severity and a five-character SQLSTATE.
function isDriverError(error: unknown): error is DriverError {
  const fields = error as Partial<DriverError> | null;
  return typeof fields?.severity === "string" && typeof fields.code === "string" && /^[0-9A-Z]{5}$/.test(fields.code);
}

function className(error: unknown): string {
  if (isDriverError(error)) return "DatabaseError"; // the driver's class name is minified away
  // Our classes name themselves (the deployed bundle minifies class names; wrangler.toml).
  if (error instanceof Error) return error.name !== "Error" ? error.name : error.constructor.name || error.name;
  return typeof error;
}

/** Stack frames outside dependencies. The message is cut off first: it may quote input, even lines that look like frames. */
function ownFrames(error: unknown): string[] {
  if (!(error instanceof Error) || !error.stack) return [];
  const at = error.message ? error.stack.indexOf(error.message) : -1;
  const frames = at >= 0 ? error.stack.slice(at + error.message.length) : error.stack;
  return frames
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("at ") && !line.includes("node_modules") && !line.includes("node:internal"))
    .slice(0, MAX_FRAMES);
}

function kindOf(chain: readonly unknown[], driver: DriverError | undefined): FailureKind {
  if (isDurableObjectError(chain[0]) || chain[0] instanceof EnvironmentObjectFailed) return "durable_object";
  if (chain.some((error) => error instanceof LoginRefused)) return "login_refused";
  if (chain.some((error) => error instanceof DatabaseUnreachable || error instanceof AggregateError)) return "database_unreachable";
  if (driver && UNREACHABLE_SQLSTATE.test(driver.code)) return "database_unreachable";
  return "internal";
}

export function diagnose(error: unknown): Diagnosis {
  const chain = causes(error);
  const driver = chain.find(isDriverError);
  const constraint = typeof driver?.constraint === "string" ? driver.constraint : undefined;
  return {
    kind: kindOf(chain, driver),
    errorClass: chain.map(className),
    ...(driver ? { sqlState: driver.code } : {}),
    ...(constraint ? { constraint } : {}),
    // The first error raised along our own calls: a driver error's stack is the socket's.
    frames: chain.map(ownFrames).find((frames) => frames.length > 0) ?? [],
  };
}
