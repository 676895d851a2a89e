// The people's `svc` commands without a control plane: their options, the device flow's polling
// schedule (slow_down adds five seconds for good), the credentials store (0700, 0600, one entry per
// control plane), the exit statuses the error catalog gives refusals, and the HTTP client's deadline
// against servers of the test's own that never finish an answer.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { UsageError } from "../../cli/command";
import { credentialsPath, forgetToken, readToken, storeToken } from "../../cli/people/credentials";
import { DEFAULT_CONTROL_PLANE, parseOptions } from "../../cli/people/options";
import { pollForToken, type PollAnswer } from "../../cli/people/polling";
import { providers } from "../../cli/people/providers";
import { exitStatusFor, refusalOf, Stop } from "../../cli/people/refusal";
import { login, whoami } from "../../cli/people/login";
import { printable } from "../../cli/people/printable";
import { UNREACHABLE_EXIT } from "../../cli/command";
import { send } from "../../cli/people/http";
import { serving } from "../support/local-server";
import { ERROR_CATALOG } from "../../worker/http/catalog";

describe("options", () => {
  it("takes the control plane from --url, else SVC_CONTROL_PLANE, else the local stack", () => {
    expect(parseOptions([], {}).url).toBe(DEFAULT_CONTROL_PLANE);
    expect(parseOptions([], { SVC_CONTROL_PLANE: "https://cp.example" }).url).toBe("https://cp.example");
    expect(parseOptions(["--url", "https://other.example"], { SVC_CONTROL_PLANE: "https://cp.example" }).url).toBe("https://other.example");
  });

  it("collects repeated scopes, --json and positional arguments; refuses an unknown option or a missing value", () => {
    expect(parseOptions(["--scope", "tokens.manage", "--scope=billing.manage", "a/b", "--json"], {})).toMatchObject({
      scopes: ["tokens.manage", "billing.manage"],
      json: true,
      positional: ["a/b"],
    });
    expect(() => parseOptions(["--key", "sk-secret"], {})).toThrow(UsageError);
    expect(() => parseOptions(["--scope"], {})).toThrow(UsageError);
    expect(() => parseOptions(["--url", "not a url"], {})).toThrow(UsageError);
  });

  it("refuses plain http to any host but this machine: the device code and the token would cross the network in the clear", () => {
    for (const url of ["http://cp.example", "http://10.0.0.5:8080", "http://127.example.com", "ftp://cp.example"]) {
      expect(() => parseOptions(["--url", url], {}), url).toThrow(/is not https/);
    }
    expect(() => parseOptions([], { SVC_CONTROL_PLANE: "http://cp.example" })).toThrow(/is not https/);
    for (const url of ["https://cp.example", "http://127.0.0.1:8080", "http://127.1.2.3", "http://localhost:8080", "http://[::1]:8080"]) {
      expect(parseOptions(["--url", url], {}).url, url).toBe(url);
    }
  });

  it("never takes a provider key as an argument, before asking the control plane anything", async () => {
    await expect(providers(["set-key", "chat-provider", "sk-secret"], { SVC_CONTROL_PLANE: "http://127.0.0.1:1" })).rejects.toThrow(
      /never given as an argument/,
    );
  });
});

describe("the polling schedule", () => {
  /** Runs the schedule against scripted answers; the seconds slept before each poll. */
  async function slept(answers: PollAnswer["status"][], expiresIn = 600) {
    const sleeps: number[] = [];
    let clock = 0;
    const script = [...answers];
    const outcome = await pollForToken({
      interval: 5,
      expiresIn,
      now: () => clock,
      sleep: async (seconds) => {
        sleeps.push(seconds);
        clock += seconds;
      },
      poll: async () => {
        const status = script.shift() ?? "authorization_pending";
        return status === "issued" ? { status, token: "svc_cli_x", scope: "tokens.manage" } : { status, description: `said ${status}` };
      },
    });
    return { sleeps, outcome };
  }

  it("waits the interval before each poll while pending, and five seconds more for good after each slow_down", async () => {
    const { sleeps, outcome } = await slept(["authorization_pending", "slow_down", "authorization_pending", "slow_down", "issued"]);
    expect(sleeps).toEqual([5, 5, 10, 10, 15]);
    expect(outcome).toEqual({ status: "issued", token: "svc_cli_x", scope: "tokens.manage" });
  });

  it("waits through a control plane that does not answer or is unavailable, as long as the code lives", async () => {
    const { sleeps, outcome } = await slept(["unavailable", "authorization_pending", "unavailable", "issued"]);
    expect(sleeps).toEqual([5, 5, 5, 5]);
    expect(outcome.status).toBe("issued");
    const expired = await slept(["authorization_pending", "unavailable", "unavailable", "unavailable", "unavailable"], 20);
    expect(expired.outcome).toEqual({
      status: "expired_token",
      description: "The device code expired while the control plane was unavailable (said unavailable); start the sign-in again.",
    });
  });

  it("stops at expired_token, access_denied and an unknown code, and when the code's lifetime is over", async () => {
    expect((await slept(["authorization_pending", "expired_token"])).outcome.status).toBe("expired_token");
    expect((await slept(["access_denied"])).outcome).toEqual({ status: "access_denied", description: "said access_denied" });
    expect((await slept(["invalid_grant"])).outcome.status).toBe("invalid_grant");
    const { sleeps, outcome } = await slept([], 20);
    expect(outcome.status).toBe("expired_token");
    expect(sleeps).toEqual([5, 5, 5, 5]);
  });
});

describe("the credentials store", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "svc-credentials-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps one entry per control plane in $XDG_CONFIG_HOME/svc/credentials.json, directory 0700, file 0600", () => {
    const env = { XDG_CONFIG_HOME: join(dir, "config") };
    const path = credentialsPath(env);
    expect(path).toBe(join(dir, "config", "svc", "credentials.json"));
    storeToken(env, "http://127.0.0.1:8080/", { token: "svc_cli_local", scopes: ["tokens.manage"], obtainedAt: "2026-01-01T00:00:00Z" });
    storeToken(env, "https://cp.example", { token: "svc_cli_remote", scopes: [], obtainedAt: "2026-01-01T00:00:00Z" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "config", "svc")).mode & 0o777).toBe(0o700);
    expect(readToken(env, "http://127.0.0.1:8080")?.token).toBe("svc_cli_local");
    expect(forgetToken(env, "http://127.0.0.1:8080")).toBe(true);
    expect(forgetToken(env, "http://127.0.0.1:8080")).toBe(false);
    expect(readToken(env, "http://127.0.0.1:8080")).toBeNull();
    expect(readToken(env, "https://cp.example")?.token).toBe("svc_cli_remote");
  });

  it("defaults to ~/.config/svc/credentials.json", () => {
    expect(credentialsPath({ HOME: dir })).toBe(join(dir, ".config", "svc", "credentials.json"));
  });
});

describe("refusals", () => {
  it("exit with the catalog's status for the code, 1 for a code without one", () => {
    expect(exitStatusFor("forbidden")).toBe(ERROR_CATALOG.forbidden.exitStatus);
    expect(exitStatusFor("rate_limited")).toBe(1);
    expect(exitStatusFor(null)).toBe(1);
    expect(exitStatusFor("toString")).toBe(1);
  });

  it("print the service's sentence, and tell a 401 to log in again", () => {
    const forbidden = refusalOf("http://cp", 403, "forbidden", { error: "This CLI token lacks tokens.manage; run `svc login --scope tokens.manage`." });
    expect(forbidden.message).toBe("This CLI token lacks tokens.manage; run `svc login --scope tokens.manage`.");
    expect(forbidden.exitStatus).toBe(4);
    const unauthenticated = refusalOf("http://cp", 401, "unauthenticated", { error: "The CLI token is unknown, expired or revoked." });
    expect(unauthenticated.message).toMatch(/no longer valid.*run `svc login` again/);
    expect(unauthenticated.exitStatus).toBe(3);
  });
});

describe("what a control plane says", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "svc-answers-"));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What the command wrote to standard error and standard output, and how it ended. */
  async function ran(command: () => Promise<number>) {
    const written: string[] = [];
    const keep = (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stderr, "write").mockImplementation(keep);
    vi.spyOn(process.stdout, "write").mockImplementation(keep);
    const ended = await command().catch((error: unknown) => error);
    vi.restoreAllMocks();
    return { written: written.join(""), ended };
  }

  it("is printed without control characters: no escape sequence reaches the terminal", async () => {
    expect(printable("\u001b]0;owned\u0007code \u001b[2JABCD-EFGH\r\nnext\u009b31m")).toBe("]0;ownedcode [2JABCD-EFGH\nnext31m");
    await serving(
      (request, response) => {
        response.writeHead(request.url === "/auth/device/code" ? 200 : 400, { "content-type": "application/json" });
        response.end(
          request.url === "/auth/device/code"
            ? JSON.stringify({
                device_code: "d",
                user_code: "\u001b[2JABCD",
                verification_uri: "http://x/\u001b]8;;evil\u0007device",
                expires_in: 600,
                interval: 1,
              })
            : JSON.stringify({ error: "access_denied", error_description: "\u001b[31mno" }),
        );
      },
      async (url) => {
        const { written, ended } = await ran(() => login(["--url", url], { XDG_CONFIG_HOME: dir }));
        expect(ended).toBeInstanceOf(Stop);
        expect(written).toContain("enter the code [2JABCD");
        expect(written).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      },
    );
  });

  it("is checked before use: a malformed whoami answer is a sentence saying what was wrong, not a TypeError", async () => {
    await serving(
      (_request, response) => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ tokenId: "t", person: null })),
      async (url) => {
        storeToken({ XDG_CONFIG_HOME: dir }, url, { token: "svc_cli_x", scopes: [], obtainedAt: "2026-01-01T00:00:00Z" });
        const { ended } = await ran(() => whoami(["--url", url], { XDG_CONFIG_HOME: dir }));
        expect(ended).toBeInstanceOf(Stop);
        expect((ended as Stop).message).toBe(
          `The control plane at ${url} answered /v1/cli/whoami with something this command does not understand (person: Invalid input: expected object, received null).`,
        );
      },
    );
  });
});

describe("a control plane that does not answer", () => {
  const givesUp = (url: string) =>
    expect(send(url, "GET", "/v1/cli/whoami", { deadlineMs: 200 })).rejects.toMatchObject({
      exitStatus: UNREACHABLE_EXIT,
      message: `The control plane at ${url} did not answer within 0.2 s; try again, or check that it runs.`,
    });

  it("is given up at the deadline when it accepts the connection and says nothing, as unreachable (69)", () => serving(() => {}, givesUp));

  it("is given up at the deadline when it sends the headers and never ends the body", () =>
    serving((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"person":');
    }, givesUp));

  it("still reads an answer that comes in time", () =>
    serving(
      (_request, response) => response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'),
      async (url) => expect(await send(url, "GET", "/v1/cli/whoami", { deadlineMs: 2000 })).toMatchObject({ status: 200, body: { ok: true } }),
    ));
});
