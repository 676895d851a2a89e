// Shared primitives for reading variables. Every refusal goes through `EnvReader.refuse`, so the
// parser collects all problems in one pass; messages never include a value (it may be a secret).
import type { ConfigError } from "./types";
import type { VariableName } from "./variables";

export class EnvReader {
  readonly errors: ConfigError[] = [];
  readonly warnings: string[] = [];

  constructor(private readonly env: Readonly<Record<string, unknown>>) {}

  /** Trimmed text, or undefined when unset or blank. */
  text(name: VariableName): string | undefined {
    const value = this.raw(name)?.trim();
    return value === "" ? undefined : value;
  }

  /** Unset and blank differ only for SVC_SIGNIN_ALLOWLIST, where blank means nobody may sign in. */
  isSet(name: VariableName): boolean {
    return this.raw(name) !== undefined;
  }

  refuse(variable: VariableName, message: string, exitStatus: 1 | 2 = 1): void {
    this.errors.push({ variable, message, exitStatus });
  }

  /** `when` says under which condition it is required, e.g. " when SVC_MIGRATE is 1". */
  refuseUnset(variable: VariableName, when = ""): void {
    this.refuse(variable, `${variable} is not set; it is required${when}.`);
  }

  /** A variable read twice must not be flagged twice. */
  warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }

  private raw(name: VariableName): string | undefined {
    const value = this.env[name];
    if (value === undefined || typeof value === "string") return value;
    // A wrangler `[vars]` entry written as a TOML number or table arrives as a non-string and is
    // ignored; say so, or `SVC_PORT = 8080` would silently fall back to the default.
    this.warn(`${name} is not text (a binding or a non-string var) and is ignored.`);
    return undefined;
  }
}

/**
 * A required variable; refuses when it is unset. `read` validates the value. The "" returned for a
 * missing or refused value is never seen: the parser discards the config once any error is recorded.
 */
export function readRequired(
  r: EnvReader,
  name: VariableName,
  read: (r: EnvReader, name: VariableName) => string | null = (r, name) => r.text(name) ?? null,
): string {
  if (r.text(name) === undefined) r.refuseUnset(name);
  return read(r, name) ?? "";
}

/** For variables whose only values are `1`, `0`, `true`, `false`; anything else refuses. */
export function readFlag(r: EnvReader, name: VariableName): boolean {
  const value = r.text(name);
  if (value === undefined || value === "0" || value === "false") return false;
  if (value === "1" || value === "true") return true;
  r.refuse(name, `${name} must be 1, 0, true or false, or be unset.`);
  return false;
}

/** For variables the spec turns on with `1` and nothing else; another value is flagged, not refused. */
export function readOnWithOne(r: EnvReader, name: VariableName): boolean {
  const value = r.text(name);
  if (value !== undefined && value !== "1" && value !== "0" && value !== "false") {
    r.warn(`${name} is off: only 1 turns it on.`);
  }
  return value === "1";
}

/** A whole number within [min, max]; null when unset or refused. */
export function readWholeNumber(r: EnvReader, name: VariableName, min: number, max = Number.MAX_SAFE_INTEGER): number | null {
  const value = r.text(name);
  if (value === undefined) return null;
  const number = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (number >= min && number <= max) return number;
  const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
  r.refuse(name, `${name} must be a whole number ${range}.`);
  return null;
}

/** An absolute http or https address, kept as written. */
export function readHttpUrl(r: EnvReader, name: VariableName): string | null {
  const value = r.text(name);
  if (value === undefined) return null;
  const url = parseUrl(value);
  if (url !== null && (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "") return value;
  r.refuse(name, `${name} must be an absolute http or https address.`);
  return null;
}

/** A PostgreSQL connection string; its text is never repeated because it holds a password. */
export function readConnectionString(r: EnvReader, name: VariableName): string | null {
  const value = r.text(name);
  if (value === undefined) return null;
  const url = parseUrl(value);
  if (url !== null && (url.protocol === "postgres:" || url.protocol === "postgresql:") && url.hostname !== "") return value;
  r.refuse(name, `${name} must be a postgres:// or postgresql:// connection string.`);
  return null;
}

/**
 * 32 bytes in canonical base64: re-encoding the bytes gives the same text, which rules out missing
 * padding, stray whitespace and non-zero trailing bits (two spellings of one key would compare unequal).
 */
export function readKey32(r: EnvReader, name: VariableName, text: string, subject: string = name): Uint8Array | null {
  const bytes = decodeBase64(text);
  if (bytes !== null && bytes.length === 32 && encodeBase64(bytes) === text) return bytes;
  r.refuse(name, `${subject} must be 32 bytes in canonical base64 (44 characters ending in "=").`);
  return null;
}

/** `URL.parse` without relying on it: Node 20's type definitions lack it. */
export function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

export function decodeBase64(text: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

function encodeBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

/**
 * For a group the spec calls "all or none": the values when all are set, null when none are, and
 * the missing names otherwise (the caller decides whether that refuses or only warns).
 */
export function readGroup<const N extends VariableName>(r: EnvReader, names: readonly N[]): { values: Record<N, string> | null; missing: N[] } {
  const values = {} as Record<N, string>;
  const missing: N[] = [];
  for (const name of names) {
    const value = r.text(name);
    if (value === undefined) missing.push(name);
    else values[name] = value;
  }
  if (missing.length === 0) return { values, missing };
  return { values: null, missing: missing.length === names.length ? [] : missing };
}

/** `readGroup` where a partly set group refuses, naming each missing variable. */
export function readAllOrNone<const N extends VariableName>(r: EnvReader, names: readonly N[]): Record<N, string> | null {
  const { values, missing } = readGroup(r, names);
  const set = names.filter((name) => !missing.includes(name));
  for (const name of missing) {
    r.refuse(name, `${name} is not set, but ${namesAre(set)}: set all of ${listNames(names)}, or none.`);
  }
  return values;
}

/** Names separated by commas or whitespace, where a stray separator is harmless. */
export function splitNames(text: string): string[] {
  return text.split(/[\s,]+/).filter((name) => name !== "");
}

/** Comma-separated entries, trimmed; an empty entry refuses. */
export function readList(r: EnvReader, name: VariableName): string[] | null {
  const value = r.text(name);
  if (value === undefined) return null;
  const entries = value.split(",").map((entry) => entry.trim());
  if (entries.every((entry) => entry !== "")) return entries;
  r.refuse(name, `${name} has an empty entry (check for a doubled or trailing comma).`);
  return null;
}

/**
 * Comma-separated `<key>=<value>` entries. Only the key, which is never secret, appears in a
 * message; the same key twice with different values refuses rather than letting one silently win.
 */
export function readEntries(r: EnvReader, name: VariableName, shape: string): Map<string, string> | null {
  const entries = readList(r, name);
  if (entries === null) return null;
  const map = new Map<string, string>();
  let ok = true;
  entries.forEach((entry, index) => {
    const at = entry.indexOf("=");
    const key = entry.slice(0, at).trim();
    const value = entry.slice(at + 1).trim();
    if (at < 0 || key === "" || value === "") {
      r.refuse(name, `${name} entry ${index + 1} is not of the form ${shape}.`);
      ok = false;
    } else if (map.has(key) && map.get(key) !== value) {
      r.refuse(name, `${name} gives "${key}" two different values.`);
      ok = false;
    } else {
      map.set(key, value);
    }
  });
  return ok ? map : null;
}

/** "A", "A and B", "A, B and C". */
export function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** "A is", "A and B are": for sentences about which variables are (not) set. */
export function namesAre(names: readonly string[]): string {
  return `${listNames(names)} ${names.length === 1 ? "is" : "are"}`;
}
