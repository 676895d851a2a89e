// One way to assert a refusal: its status, its catalog code, and that what it would have changed is
// as it was. A hand-written route answers the code in x-svc-error-code beside `{ error }`; a console
// procedure called over HTTP (rpcGet, rpcPost: one call, not batched) in the same header and in the
// envelope's data.errorCode; the typed client's call rejects with both in the error's data.
import { expect } from "vitest";
import type { ErrorCode } from "../../worker/http/catalog";

interface Refused {
  status: number;
  code: string | null;
}

async function refusedWith(act: () => Promise<unknown>): Promise<Refused> {
  let answer: unknown;
  try {
    answer = await act();
  } catch (error) {
    const data = (error as { data?: { httpStatus?: number; errorCode?: string } }).data;
    if (data?.httpStatus === undefined) throw error;
    return { status: data.httpStatus, code: data.errorCode ?? null };
  }
  if (!(answer instanceof Response)) throw new Error("expected a refusal, and the call succeeded");
  const [status, code] = statusAndCode(answer);
  const body = (await answer.json()) as { error?: string | { data?: { errorCode?: string } } };
  // Whatever the transport, the sentence or the envelope is there, and its code is the header's.
  expect(body.error, "a refusal has a body saying why").toBeTruthy();
  if (typeof body.error === "object") expect(body.error.data?.errorCode ?? null).toBe(code);
  return { status, code };
}

/**
 * Runs `act` and expects it refused with `status` and the catalog's `code`; when `unchanged` is given,
 * what it reads before the call must read the same after it.
 */
export async function expectRefusal<T>(
  act: () => Promise<unknown>,
  expected: { status: number; code: ErrorCode },
  unchanged?: () => Promise<T>,
): Promise<void> {
  const before = unchanged ? await unchanged() : undefined;
  expect(await refusedWith(act)).toEqual(expected);
  if (unchanged) expect(await unchanged()).toEqual(before);
}

/**
 * A refused answer's status and catalog code, to assert both at once: a Response's x-svc-error-code
 * header, or the `code` a test's own helper read from it.
 */
export const statusAndCode = (answer: { status: number; headers?: Headers; code?: string | null }): [number, string | null] => [
  answer.status,
  answer.headers?.get("x-svc-error-code") ?? answer.code ?? null,
];
