// How the people's commands stop: the service's own sentence on standard error (never a token), with
// the exit status the error catalog (errors.v1.json) gives the code the service answered.
import { ERROR_CATALOG, type CatalogEntry } from "../../worker/http/catalog";

/** A refusal of the service, or of the command line itself: its sentence and exit status. */
export class Stop extends Error {
  override readonly name = "Stop";
  constructor(
    message: string,
    readonly exitStatus: number,
    /** The service's JSON answer, for --json. */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** The catalog's exit status for `code`; a code without one (or unknown) exits 1. */
export function exitStatusFor(code: string | null): number {
  const entry = code && Object.hasOwn(ERROR_CATALOG, code) ? (ERROR_CATALOG[code as keyof typeof ERROR_CATALOG] as CatalogEntry) : undefined;
  return entry?.exitStatus ?? 1;
}

export const loginAgain = (url: string) =>
  `The stored token for ${url} is no longer valid (expired, revoked, or its person left the organization); run \`svc login\` again.`;

/** The Stop for a refused answer: 401 says to log in again; otherwise the service's sentence. */
export function refusalOf(url: string, status: number, code: string | null, body: unknown): Stop {
  const sentence = typeof (body as { error?: unknown })?.error === "string" ? (body as { error: string }).error : null;
  if (status === 401) return new Stop(loginAgain(url), exitStatusFor("unauthenticated"), body);
  return new Stop(sentence ?? `The control plane answered ${status}.`, exitStatusFor(code), body);
}
