// The people's `svc` as a person runs it: built (`npm run build:cli`), packed and installed with
// `npm install -g` into a prefix of its own, and run from a directory outside the repository, against
// the local stack: signing in through the device flow approved by the API and in Chromium, the token
// kept in a 0600 file and never printed, whoami, claims and provider keys with a refusal each, a missing
// scope naming the login command that fixes it, a revoked token told to log in again, and an
// operator's command naming where it runs.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CATALOG } from "../../worker/http/catalog";
import { base, installedAccount, launch, said, signedIn, unique } from "./support/browser";

const ROOT = new URL("../../", import.meta.url).pathname;
const config = mkdtempSync(join(tmpdir(), "svc-cli-e2e-"));
const credentials = join(config, "svc", "credentials.json");
// Node on the PATH (the bin's `#!/usr/bin/env node`), the installed bin first; nothing of the repository.
const env = {
  PATH: `${join(config, "prefix", "bin")}:${dirname(process.execPath)}:${process.env.PATH}`,
  HOME: config,
  XDG_CONFIG_HOME: config,
  SVC_CONTROL_PLANE: base,
};
const BIN = join(config, "prefix", "bin", "svc");

/** Builds the CLI, packs cli/ as npm would publish it and installs the package globally into a prefix of the test's own. */
function install(): void {
  execFileSync("npm", ["run", "--silent", "build:cli"], { cwd: ROOT, stdio: "pipe" });
  const packed = execFileSync("npm", ["pack", join(ROOT, "cli"), "--pack-destination", config, "--silent"], { cwd: config, encoding: "utf8" }).trim();
  execFileSync("npm", ["install", "--global", "--prefix", join(config, "prefix"), "--offline", "--no-audit", "--no-fund", join(config, packed)], {
    cwd: config,
    stdio: "pipe",
  });
}

const exit = (code: keyof typeof ERROR_CATALOG) => (ERROR_CATALOG[code] as { exitStatus?: number }).exitStatus;

/** `svc <args>` to its end. */
function svc(args: string[], input = "") {
  const result = spawnSync(BIN, args, { cwd: config, input, encoding: "utf8", env });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const storedToken = () =>
  Object.values((JSON.parse(readFileSync(credentials, "utf8")) as { controlPlanes: Record<string, { token: string }> }).controlPlanes)[0]?.token;

/**
 * `svc login <args>`: once it prints the user code, `approve` approves it; resolves when the command
 * ends, with everything it printed.
 */
function login(args: string[], approve: (userCode: string, link: string) => Promise<void>) {
  const child = spawn(BIN, ["login", ...args], { cwd: config, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let approving: Promise<void> | undefined;
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    const code = / enter the code (\S+)\n\(or open (\S+)\)/.exec(stderr);
    if (code && !approving) approving = approve(code[1]!, code[2]!);
  });
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", async (status) => {
      await approving;
      resolve({ status, stdout, stderr });
    });
  });
}

let browser: Browser;
let page: Page;
const person = unique("cli");
const repository = `${person}/shop`;

/** The signed-in person's console page calls `path` with its session and CSRF token. */
const asPerson = (path: string, body: unknown) =>
  page.evaluate(
    async ({ path, body }) => {
      const session = (await (await fetch("/auth/session")).json()) as { csrfToken: string; organizations: Array<{ id: string; slug: string }> };
      const orgId = session.organizations[0]!.id;
      const response = await fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json", "x-svc-csrf": session.csrfToken },
        body: JSON.stringify({ orgId, ...(body as object) }),
      });
      return { status: response.status, body: await response.json() };
    },
    { path, body },
  );

beforeAll(async () => {
  install();
  browser = await launch();
  await installedAccount(person, [repository]);
  page = await signedIn(browser, person);
  await page.getByRole("heading", { level: 1, name: "Getting started" }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  rmSync(config, { recursive: true, force: true });
});

describe("the installed svc", () => {
  it("lists the people's commands, and sends an operator's command to a clone of the repository", () => {
    const help = svc(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stderr).toMatch(/login \[--scope <permission> \.\.\.\]/);
    const migrate = svc(["migrate"]);
    expect(migrate.status).toBe(64);
    expect(migrate.stderr).toMatch(/svc migrate is an operator's command: .*npm run --silent svc -- migrate/);
    expect(svc(["no-such-command"]).status).toBe(64);
  });
});

describe("svc for the people of an organization", () => {
  it("signs in approved through the API; a missing scope names `svc login --scope tokens.manage`", async () => {
    const run = await login([], async (userCode) => {
      const approved = await asPerson("/auth/device/approve", { userCode, approve: true, codeConfirmed: true });
      expect(approved.status).toBe(200);
    });
    expect(run.stderr).toMatch(/To sign in, open .*\/auth\/device/);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`Signed in: ${person} in ${person} \\(owner\\)`));
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    expect(statSync(join(config, "svc")).mode & 0o777).toBe(0o700);
    expect(run.stdout + run.stderr).not.toContain(storedToken());

    const refused = svc(["claims", "list"]);
    expect(refused.status).toBe(exit("forbidden"));
    expect(refused.stderr).toMatch(/`svc login --scope tokens.manage`/);
  });

  it("signs in with scopes approved in Chromium, and says who it is", async () => {
    const run = await login(["--scope", "tokens.manage", "--scope", "billing.manage"], async (userCode, link) => {
      await page.goto(link);
      await page.getByLabel(`The code ${userCode} matches the one my terminal shows`).check();
      await page.getByRole("button", { name: "Approve" }).click();
      await said(page, "Approved: return to the command line.");
    });
    expect(run.status).toBe(0);
    const token = storedToken()!;
    expect(token).toMatch(/^svc_cli_/);
    expect(statSync(credentials).mode & 0o777).toBe(0o600);

    const whoami = svc(["whoami"]);
    expect(whoami.status).toBe(0);
    expect(whoami.stdout).toMatch(/effective scopes: tokens.manage, billing.manage/);
    const identity = JSON.parse(svc(["whoami", "--json"]).stdout);
    expect(identity).toMatchObject({ person: { login: person }, organization: { slug: person }, role: "owner", scopes: ["tokens.manage", "billing.manage"] });
    expect(whoami.stdout + JSON.stringify(identity)).not.toContain(token);
  });

  it("claims a repository, lists and revokes the claim; refuses an unprovable claim with the service's sentence", () => {
    const added = svc(["claims", "add", repository]);
    expect(added.stderr).toBe("");
    expect(added.status).toBe(0);
    expect(added.stdout).toContain(`Claimed ${repository}`);
    const list = JSON.parse(svc(["claims", "list", "--json"]).stdout) as { bindings: Array<{ repository: string }> };
    expect(list.bindings.map((claim) => claim.repository)).toContain(repository);

    const unproven = svc(["claims", "add", `${unique("stranger")}/app`]);
    expect(unproven.status).toBe(exit("claim_proof_required"));
    expect(unproven.stderr).toMatch(/is pending and grants nothing until the repository proves it/);

    expect(svc(["claims", "revoke", repository]).stdout).toMatch(new RegExp(`Revoked the claim on ${repository}`));
    expect(svc(["claims", "revoke", repository]).stdout).toMatch(/already revoked/);
    const missing = svc(["claims", "revoke", crypto.randomUUID()]);
    expect(missing.status).toBe(exit("not_found"));
    expect(missing.stderr).toMatch(/no claim with that id/);
  });

  it("stores a provider key from standard input only, sets a budget, lists and revokes", () => {
    expect(svc(["providers", "set-key", "chat-provider", "sk-never-an-argument"]).status).toBe(64);
    const stored = svc(["providers", "set-key", "chat-provider"], "sk-local-from-stdin-4321\n");
    expect(stored.status).toBe(0);
    expect(stored.stdout).toMatch(/Stored the chat-provider key ending 4321/);
    expect(svc(["providers", "budget", "chat-provider", "5"]).stdout).toMatch(/chat-provider: budget \$5\.00 a month/);
    const list = svc(["providers", "list"]);
    expect(list.stdout).toMatch(/chat-provider: key \.\.\.4321; budget \$5\.00/);
    expect(list.stdout).not.toContain("sk-local");

    const unknown = svc(["providers", "budget", "no-such-provider", "5"]);
    expect(unknown.status).toBe(exit("not_found"));
    expect(unknown.stderr).toMatch(/No such provider/);
    expect(svc(["providers", "revoke", "chat-provider"]).status).toBe(0);
    const again = svc(["providers", "revoke", "chat-provider"]);
    expect(again.status).toBe(exit("not_found"));
    expect(again.stderr).toMatch(/has no chat-provider key stored/);
  });

  it("tells a revoked token to log in again; logout forgets it", async () => {
    const { tokenId } = JSON.parse(svc(["whoami", "--json"]).stdout) as { tokenId: string };
    expect((await asPerson("/rpc/tokens.revoke", { tokenId })).status).toBe(200);
    const refused = svc(["claims", "list"]);
    expect(refused.status).toBe(exit("unauthenticated"));
    expect(refused.stderr).toMatch(/no longer valid.*run `svc login` again/);

    expect(svc(["logout"]).stdout).toMatch(/Signed out of .*: its token was no longer valid there, and is forgotten here/);
    expect(svc(["whoami"]).stderr).toMatch(/Not signed in to .*; run `svc login` first/);
  });

  it("logout revokes the token at the service; --all every CLI token of the person there", async () => {
    const approve = async (userCode: string) => void (await asPerson("/auth/device/approve", { userCode, approve: true, codeConfirmed: true }));
    const valid = async (token: string) => (await fetch(`${base}/v1/cli/whoami`, { headers: { authorization: `Bearer ${token}` } })).status;
    expect((await login([], approve)).status).toBe(0);
    const first = storedToken()!;
    const out = svc(["logout"]);
    expect(out.stdout).toMatch(/Signed out of .*: its token is revoked there, and forgotten here/);
    expect(await valid(first)).toBe(401);

    // Signed in twice (another machine's token stays live when this one signs in again), then out of both.
    expect((await login([], approve)).status).toBe(0);
    const elsewhere = storedToken()!;
    expect((await login([], approve)).status).toBe(0);
    const here = storedToken()!;
    expect([await valid(elsewhere), await valid(here)]).toEqual([200, 200]);
    const all = svc(["logout", "--all", "--json"]);
    expect(all.status).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject({ revoked: expect.any(Number), forgotten: true });
    expect(JSON.parse(all.stdout).revoked).toBeGreaterThanOrEqual(2);
    expect([await valid(elsewhere), await valid(here)]).toEqual([401, 401]);
    expect(svc(["logout"]).stdout).toMatch(/Not signed in to/);
  });
});
