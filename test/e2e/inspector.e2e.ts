// The real MCP Inspector (@modelcontextprotocol/inspector 2.12, its command line) logs in to the
// organization under `wrangler dev` in both of its modes: by default (it registers for
// authorization_code and refresh_token) and with `oauth.requestRefreshToken=false` (authorization_code
// alone). It prints the consent address; the person allows in Chromium; the browser lands on the
// Inspector's own loopback callback; the Inspector redeems the code and lists the tools. One consent
// each: a second registration or authorization would print a second address and never finish.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../local/free-port";
import { base, installedAccount, launch, LANDED, signedIn, unique } from "./support/browser";

const INSPECTOR = new URL("../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js", import.meta.url).pathname;
const homes = mkdtempSync(join(tmpdir(), "svc-inspector-e2e-"));
const login = unique("inspector");
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launch();
  await installedAccount(login);
  page = await signedIn(browser, login);
  await page.waitForURL(LANDED);
});

afterAll(async () => {
  await browser?.close();
  rmSync(homes, { recursive: true, force: true });
});

interface Login {
  status: number | null;
  stdout: string;
  addresses: URL[];
}

/**
 * `mcp-inspector --cli ... --method tools/list` to its end; each consent address it prints is allowed
 * in the signed-in browser. Without a terminal the Inspector prints the address only when told it may
 * open a browser (MCP_AUTO_OPEN_ENABLED); none is installed here, so it says so and waits. Each run
 * is a fresh Inspector (a home of its own): it keeps a server's registration, callback address included.
 */
function inspector(args: string[]): Promise<Login> {
  const home = mkdtempSync(join(homes, "home-"));
  const child = spawn(process.execPath, [INSPECTOR, "--cli", ...args, "--method", "tools/list", "--format", "json"], {
    cwd: home,
    env: { PATH: dirname(process.execPath), HOME: home, MCP_AUTO_OPEN_ENABLED: "true", MCP_INSPECTOR_SECRET_STORE: "memory" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const addresses: URL[] = [];
  const allowing: Promise<void>[] = [];
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk;
    for (const [, address] of stderr.matchAll(/Please navigate to: (\S+)\n/g)) {
      if (addresses.some((seen) => seen.href === address)) continue;
      addresses.push(new URL(address!));
      allowing.push(allow(new URL(address!)));
    }
  });
  // A second consent would mean the login loops: stop it rather than wait for the test's timeout.
  const watch = setInterval(() => addresses.length > 1 && child.kill(), 200);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", async (status) => {
      clearInterval(watch);
      await Promise.all(allowing);
      resolve({ status, stdout, addresses });
    });
  });
}

/** The person allows the client on the consent page; the browser then sets off for the Inspector's callback. */
async function allow(address: URL): Promise<void> {
  await page.goto(address.toString());
  await page.getByRole("heading", { name: "Connect a model client" }).waitFor();
  const callback = page.waitForURL((url) => url.origin !== base && url.pathname === "/oauth/callback");
  await page.getByRole("button", { name: "Allow" }).click();
  await callback;
}

const tools = (stdout: string) => (JSON.parse(stdout) as { result: { tools: Array<{ name: string }> } }).result.tools.map(({ name }) => name);

describe("the MCP Inspector's two logins", () => {
  it("completes with its defaults, asking for authorization_code and refresh_token", async () => {
    const callback = `http://127.0.0.1:${await freePort()}/oauth/callback`;
    const result = await inspector(["--server-url", `${base}/mcp`, "--callback-url", callback]);
    expect(result.addresses).toHaveLength(1);
    expect(result.addresses[0]!.searchParams.get("redirect_uri")).toBe(callback);
    expect(result.status).toBe(0);
    expect(tools(result.stdout)).toContain("list_environments");
  });

  it("completes with oauth.requestRefreshToken=false, asking for authorization_code alone", async () => {
    const config = join(homes, "servers.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { svc: { type: "streamable-http", url: `${base}/mcp`, oauth: { requestRefreshToken: false } } } }));
    const callback = `http://127.0.0.1:${await freePort()}/oauth/callback`;
    const result = await inspector(["--config", config, "--server", "svc", "--callback-url", callback]);
    expect(result.addresses).toHaveLength(1);
    expect(result.status).toBe(0);
    expect(tools(result.stdout)).toContain("list_environments");
  });
});
