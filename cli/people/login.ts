// svc login, logout, whoami: the device flow of RFC 8628 against /auth/device/code and
// /auth/device/token (worker/device/routes.ts), the token kept in the credentials file and shown by
// nobody: the person is told where to approve, and later who the token acts for (GET /v1/cli/whoami).
import * as z from "zod";
import { type CommandEnv, UNREACHABLE_EXIT } from "../command";
import { credentialsPath, forgetToken, readToken, storeToken } from "./credentials";
import { expectOk, send } from "./http";
import { expectArguments } from "./options";
import { pollForToken, type PollAnswer } from "./polling";
import { printable } from "./printable";
import { exitStatusFor, refusalOf, Stop } from "./refusal";
import { invocation, print, storedToken, type Invocation } from "./session";

export const CLIENT_ID = "svc-cli";
const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

// What the command reads of the service's answers, checked before use: a broken or hostile answer is
// a sentence saying what was wrong, never a TypeError. Not the Worker's strict schemas: a newer
// service may add fields, and the installed command does not carry the Worker's code.
const DeviceCode = z.object({
  device_code: z.string(),
  user_code: z.string(),
  verification_uri: z.string(),
  verification_uri_complete: z.string().optional(),
  expires_in: z.number().positive(),
  interval: z.number().positive().optional(),
});

const CliIdentity = z.object({
  tokenId: z.string(),
  person: z.object({ id: z.string(), login: z.string().nullable() }),
  organization: z.object({ id: z.string(), slug: z.string() }),
  role: z.string(),
  scopes: z.array(z.string()),
  effectiveScopes: z.array(z.string()),
  expiresAt: z.string().nullable(),
});
export type CliIdentity = z.infer<typeof CliIdentity>;

/** `body` read as `shape`, or a Stop naming the first thing that was not as this command expects. */
function understood<T>(shape: z.ZodType<T>, body: unknown, what: string, url: string): T {
  const read = shape.safeParse(body);
  if (read.success) return read.data;
  const issue = read.error.issues[0]!;
  const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
  throw new Stop(`The control plane at ${url} answered ${what} with something this command does not understand (${where}${issue.message}).`, 1, body);
}

/** An RFC 6749 5.2 error body, or a Refusal: its sentence. */
const describe = (body: unknown) => {
  const error = body as { error?: unknown; error_description?: unknown } | null;
  return typeof error?.error_description === "string" ? error.error_description : typeof error?.error === "string" ? error.error : "";
};

async function startSignIn(run: Invocation): Promise<z.infer<typeof DeviceCode>> {
  const answer = await send(run.url, "POST", "/auth/device/code", { form: { client_id: CLIENT_ID, scope: run.scopes.join(" ") } });
  if (answer.status === 200) return understood(DeviceCode, answer.body, "the sign-in request", run.url);
  const code = (answer.body as { error?: string } | null)?.error;
  throw new Stop(
    describe(answer.body) || `The control plane answered ${answer.status}.`,
    exitStatusFor(code === "invalid_scope" ? "invalid_request" : (answer.code ?? "invalid_request")),
    answer.body,
  );
}

/** Statuses of a control plane or its proxy that is there but cannot answer now. */
const UNAVAILABLE = new Set([502, 503, 504]);

async function pollOnce(run: Invocation, deviceCode: string): Promise<PollAnswer> {
  let answer: Awaited<ReturnType<typeof send>>;
  try {
    answer = await send(run.url, "POST", "/auth/device/token", { form: { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: CLIENT_ID } });
  } catch (error) {
    if (error instanceof Stop && error.exitStatus === UNREACHABLE_EXIT) return { status: "unavailable", description: `nothing answered at ${run.url}` };
    throw error;
  }
  const body = answer.body as { access_token?: string; scope?: string; error?: string } | null;
  if (answer.status === 200 && body?.access_token) return { status: "issued", token: body.access_token, scope: body.scope ?? "" };
  if (UNAVAILABLE.has(answer.status)) return { status: "unavailable", description: describe(body) || `it answered ${answer.status}` };
  const status = body?.error;
  if (status === "authorization_pending" || status === "slow_down" || status === "expired_token" || status === "access_denied" || status === "invalid_grant") {
    return { status, description: describe(body) } as PollAnswer;
  }
  throw new Stop(describe(body) || `The control plane answered ${answer.status} while waiting for the sign-in.`, exitStatusFor(answer.code), body);
}

const whoamiOf = async (run: Invocation, token: string) =>
  understood(CliIdentity, await expectOk<unknown>(run.url, "GET", "/v1/cli/whoami", 200, { token }), "/v1/cli/whoami", run.url);

const list = (scopes: string[]) => (scopes.length ? scopes.join(", ") : "none");

const describeIdentity = (identity: CliIdentity, url: string) =>
  [
    `${identity.person.login ?? identity.person.id} in ${identity.organization.slug} (${identity.role}) at ${url}`,
    `granted scopes:   ${list(identity.scopes)}`,
    `effective scopes: ${list(identity.effectiveScopes)} (what the role allows now)`,
    `expires:          ${identity.expiresAt ?? "never"}`,
  ].join("\n");

export async function login(args: string[], env: CommandEnv): Promise<number> {
  const run = invocation(args, env);
  expectArguments(run, []);
  const started = await startSignIn(run);
  // On standard error: standard output carries only the result (the JSON one with --json).
  process.stderr.write(
    printable(
      `To sign in, open ${started.verification_uri} in a browser where you are signed in, and enter the code ${started.user_code}\n` +
        `(or open ${started.verification_uri_complete ?? started.verification_uri}). Check that the page shows the same code.\n` +
        `Waiting for approval; the code expires in ${Math.round(started.expires_in / 60)} minutes.\n`,
    ),
  );
  const outcome = await pollForToken({
    interval: started.interval ?? 5,
    expiresIn: started.expires_in,
    poll: () => pollOnce(run, started.device_code),
    sleep: (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
    now: () => Date.now() / 1000,
  });
  if (outcome.status === "access_denied") throw new Stop("The sign-in was denied in the browser; nothing was stored.", exitStatusFor("forbidden"), outcome);
  if (outcome.status !== "issued") throw new Stop(`${outcome.description} Run \`svc login\` again.`, exitStatusFor("unauthenticated"), outcome);
  const scopes = outcome.scope.split(" ").filter(Boolean);
  storeToken(env, run.url, { token: outcome.token, scopes, obtainedAt: new Date().toISOString() });
  const identity = await whoamiOf(run, outcome.token);
  return print(run, identity, () => `Signed in: ${describeIdentity(identity, run.url)}\nThe token is stored in ${credentialsPath(env)}.`);
}

/**
 * Revokes the stored token at the service (`--all`: every CLI token of its person there), then forgets
 * it. A token the service already refuses (revoked, expired, its person gone) is forgotten too; a
 * service that cannot be reached keeps it, so that the person can try again.
 */
export async function logout(args: string[], env: CommandEnv): Promise<number> {
  const run = invocation(args, env);
  expectArguments(run, []);
  const stored = readToken(env, run.url);
  if (!stored) return print(run, { controlPlane: run.url, revoked: 0, forgotten: false }, () => `Not signed in to ${run.url}.`);
  const answer = await send(run.url, "POST", "/v1/cli/logout", { token: stored.token, json: run.all ? { all: true } : {} });
  if (answer.status !== 200 && answer.status !== 401) throw refusalOf(run.url, answer.status, answer.code, answer.body);
  forgetToken(env, run.url);
  const revoked = answer.status === 200 ? (answer.body as { revoked: number }).revoked : 0;
  return print(run, { controlPlane: run.url, revoked, forgotten: true }, () =>
    revoked === 0
      ? `Signed out of ${run.url}: its token was no longer valid there, and is forgotten here.`
      : `Signed out of ${run.url}: ${revoked === 1 ? "its token is revoked there" : `${revoked} CLI tokens of yours are revoked there`}, and forgotten here.`,
  );
}

export async function whoami(args: string[], env: CommandEnv): Promise<number> {
  const run = invocation(args, env);
  expectArguments(run, []);
  const identity = await whoamiOf(run, storedToken(run));
  return print(run, identity, () => describeIdentity(identity, run.url));
}
