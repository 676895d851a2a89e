// Operators for the portal tests: made in the operator role's tables as `svc admin` makes them, and
// signed in through POST /admin/signin as the portal's page does.
import { inject } from "vitest";
import { hashPassword } from "../../worker/operators/password";
import type { TestDatabase } from "../setup/bindings";
import { call, callWith } from "./http";
import { asRole } from "./sql";

export const OPERATOR_PASSWORD = "correct horse battery";

export async function seedOperator(login = `op-${crypto.randomUUID().slice(0, 8)}`, password = OPERATOR_PASSWORD, database: TestDatabase = inject("database")) {
  const hash = await hashPassword(password);
  await asRole("operator", (client) => client.query("INSERT INTO operators (login, password_hash) VALUES ($1, $2)", [login, hash]), database);
  return login;
}

export interface SignedInOperator {
  login: string;
  cookie: string;
  csrf: string;
}

/** Signs in through the portal's route; `env` overrides the suite's settings (another database). */
export async function operatorSignIn(login: string, password = OPERATOR_PASSWORD, env?: Record<string, unknown>): Promise<SignedInOperator> {
  const init = {
    method: "POST",
    json: { login, password },
    headers: { "x-forwarded-for": `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` },
  };
  const response = env ? await callWith(env, "/admin/signin", init) : await call("/admin/signin", init);
  const body = (await response.json()) as { csrfToken: string };
  if (response.status !== 200) throw new Error(`operator sign-in answered ${response.status}: ${JSON.stringify(body)}`);
  const cookie = response.headers
    .getAll("set-cookie")
    .find((line) => /^(__Host-)?svc_operator_session=/.test(line))!
    .split(";")[0]!;
  return { login, cookie, csrf: body.csrfToken };
}

export async function signedInOperator(env?: Record<string, unknown>): Promise<SignedInOperator> {
  return operatorSignIn(await seedOperator(), OPERATOR_PASSWORD, env);
}

const rpcPath = (name: string, input: unknown) => `/rpc/${name}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`;

/** A query as the portal sends it, with whatever cookie is given. */
export function adminQuery(cookie: string | null, name: string, input?: unknown, env?: Record<string, unknown>): Promise<Response> {
  const init = { headers: (cookie ? { cookie } : {}) as Record<string, string> };
  return env ? callWith(env, rpcPath(name, input), init) : call(rpcPath(name, input), init);
}

export function adminMutation(cookie: string | null, csrf: string | null, name: string, input: unknown, env?: Record<string, unknown>): Promise<Response> {
  const init = { method: "POST", json: input, headers: { ...(cookie ? { cookie } : {}), ...(csrf ? { "x-svc-csrf": csrf } : {}) } as Record<string, string> };
  return env ? callWith(env, `/rpc/${name}`, init) : call(`/rpc/${name}`, init);
}

/** The `result.data` of a successful procedure, or a thrown error naming the status and body. */
export async function dataOf<T = Record<string, unknown>>(response: Response | Promise<Response>): Promise<T> {
  const answered = await response;
  const body = (await answered.json()) as { result?: { data: T } };
  if (answered.status !== 200 || !body.result) throw new Error(`answered ${answered.status}: ${JSON.stringify(body)}`);
  return body.result.data;
}
