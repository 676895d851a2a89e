// `npm run site:build` and `npm run site:check`, run as a person runs them (in Node, as commands):
// the pinned description validates and is pinned to the revision; the catalogs' published identifiers
// hold (a removed or re-meant identifier fails the build and writes nothing); the deploy check passes
// against a deployment serving the same API version and fails against one serving another. Both
// Workers bundle as `wrangler deploy` would; the control plane's script stays within its size budget,
// and `svc frames` reads its minified frames back through its source map.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LINT_FINDINGS } from "../../site/catalogs/lint-findings";
import { compareWithPublished, violations } from "../../site/build/catalogs";

const ROOT = new URL("../../", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "svc-site-"));
const out = join(dir, "dist");

type Ran = { status: number | null; stdout: string; stderr: string };

/** A command in Node, run asynchronously (a served copy may answer from this same process). */
const run = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  new Promise<Ran>((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, encoding: "utf8", env }, (error, stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr }),
    );
  });

function build(options: { out: string; published?: string }): Promise<Ran> {
  const args = ["--import", "tsx", "--import", "./site/build/register.mjs", "site/build/build.ts", "--out", options.out];
  if (options.published) args.push("--published", options.published);
  return run(args, { ...process.env, SITE_CONTROL_PLANE_URL: "https://cp.example.com" });
}

/** The committed published lists, copied and changed by `change`. */
function publishedWith(change: (lists: { errors: Record<string, string>; lint: Record<string, string> }) => void): string {
  const target = mkdtempSync(join(dir, "published-"));
  const lists = {
    errors: JSON.parse(readFileSync(join(ROOT, "site/published/errors.v1.json"), "utf8")) as Record<string, string>,
    lint: JSON.parse(readFileSync(join(ROOT, "site/published/lint-findings.v1.json"), "utf8")) as Record<string, string>,
  };
  change(lists);
  writeFileSync(join(target, "errors.v1.json"), JSON.stringify(lists.errors));
  writeFileSync(join(target, "lint-findings.v1.json"), JSON.stringify(lists.lint));
  return target;
}

const readOut = (name: string) => JSON.parse(readFileSync(join(out, name), "utf8"));

beforeAll(async () => {
  const built = await build({ out });
  expect(built.stderr).toBe("");
  expect(built.status).toBe(0);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run site:build", () => {
  it("pins a description that validates as OpenAPI 3.1, with the API version and the site revision", async () => {
    const doc = readOut("openapi.json");
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.info.license).toMatchObject({ name: "MIT" });
    const head = spawnSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout?.trim();
    expect(doc.info["x-site-revision"]).toBe(head || "unknown");
    expect(doc.servers).toEqual([{ url: "https://cp.example.com" }]);
    expect(Object.keys(doc.paths)).toContain("/v1/events");
  });

  it("publishes the error catalog with message, recovery, retry safety, documentation and exit status", () => {
    const errors = readOut("errors.v1.json");
    expect(errors.version).toBe(1);
    const byCode = Object.fromEntries(errors.errors.map((entry: { code: string }) => [entry.code, entry]));
    expect(byCode.rate_limited).toEqual({
      code: "rate_limited",
      status: 429,
      message: expect.any(String),
      recovery: expect.any(String),
      retrySafe: true,
      documentation: "/docs/errors#rate_limited",
      exitStatus: null,
    });
    expect(byCode.licence_invalid.exitStatus).toBe(2);
    // Every documentation link leads to an anchor of the rendered errors page.
    const page = readFileSync(join(out, "docs/errors.html"), "utf8");
    for (const code of Object.keys(byCode)) expect(page).toContain(`id="${code}"`);
  });

  it("publishes the lint catalogue with id, rule, title, severity and explanation", () => {
    const lint = readOut("lint-findings.v1.json");
    expect(lint.version).toBe(1);
    expect(lint.findings.map((finding: { id: string }) => finding.id)).toEqual(LINT_FINDINGS.map((finding) => finding.id));
    for (const finding of lint.findings) {
      expect(Object.keys(finding).sort()).toEqual(["explanation", "id", "rule", "severity", "title"]);
      expect(["error", "warning", "notice"]).toContain(finding.severity);
    }
    const titles = lint.findings.map((finding: { title: string }) => finding.title).join("\n");
    for (const hazard of [/rewrites the table/, /lock is held across a long operation/, /without CONCURRENTLY/, /dropped column/i])
      expect(titles).toMatch(hazard);
  });

  it("renders the pages: the three plans, both forms, docs and the API reference from the pinned copy", () => {
    const page = (name: string) => readFileSync(join(out, name), "utf8");
    expect(page("pricing.html")).toMatch(/Free[\s\S]*Team[\s\S]*Enterprise/);
    expect(page("contact.html")).toContain('data-endpoint="/v1/leads"');
    expect(page("apply.html")).toContain('data-endpoint="/v1/applications"');
    expect(page("index.html")).toContain('<meta name="svc-control-plane" content="https://cp.example.com">');
    expect(page("docs/index.html")).toContain("SVC_CONTROL_PLANE");
    expect(page("docs/events.html")).toContain("environment.torn_down");
    expect(page("docs/api.html")).toContain("<code>/v1/events</code>");
    expect(page("404.html")).toContain("Nothing is here");
    // Pages work without JavaScript: besides the forms' script, a page loads only the deferred analytics
    // beacon, which posts to the control plane's beacon endpoint and renders nothing.
    const BEACON = '<script src="/beacon.js" data-endpoint="https://cp.example.com/v1/site/events" defer></script>';
    for (const name of ["index.html", "pricing.html", "docs/index.html", "docs/api.html", "docs/errors.html"]) {
      expect(page(name)).toContain(BEACON);
      expect(page(name).replace(BEACON, "")).not.toContain("<script");
    }
    expect(readFileSync(join(out, "beacon.js"), "utf8")).toContain("af-analytics");
  });

  it("keeps the committed published lists in step with the catalogs (nothing gone, nothing re-meant)", () => {
    const errors = readOut("errors.v1.json").errors.map((entry: { code: string; status: number }) => [entry.code, `HTTP ${entry.status}`]);
    const comparison = compareWithPublished(Object.fromEntries(errors), JSON.parse(readFileSync(join(ROOT, "site/published/errors.v1.json"), "utf8")));
    expect({ missing: comparison.missing, changed: comparison.changed }).toEqual({ missing: [], changed: [] });
  });

  it("says which published identifier disappeared or changed meaning, and lets new ones through", () => {
    const comparison = compareWithPublished({ a: "x", b: "changed", d: "new" }, { a: "x", b: "y", c: "z" });
    expect(comparison).toEqual({ missing: ["c"], changed: [{ id: "b", was: "y", now: "changed" }], added: ["d"] });
    expect(violations("lint-findings.v1.json", comparison)).toEqual([
      expect.stringMatching(/identifier c is gone/),
      expect.stringMatching(/identifier b changed meaning from "y" to "changed"/),
    ]);
    expect(violations("x", compareWithPublished({ a: "x", d: "new" }, { a: "x" }))).toEqual([]);
  });

  it.each([
    ["a lint finding removed", (lists: { lint: Record<string, string> }) => void (lists.lint.ML999 = "published-then-removed"), /ML999 is gone/],
    ["an error code re-meant", (lists: { errors: Record<string, string> }) => void (lists.errors.not_found = "HTTP 410"), /not_found changed meaning/],
  ] as const)("fails on %s and writes nothing", async (_case, change, message) => {
    const target = join(dir, `never-${crypto.randomUUID().slice(0, 6)}`);
    const result = await build({
      out: target,
      published: publishedWith(change as (lists: { errors: Record<string, string>; lint: Record<string, string> }) => void),
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(existsSync(target)).toBe(false);
  });
});

describe("wrangler deploy --dry-run", () => {
  const wrangler = (args: string[], outdir = mkdtempSync(join(dir, "bundle-"))) =>
    run([join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--outdir", outdir, ...args], {
      ...process.env,
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_SEND_METRICS: "false",
    });

  it("bundles the site Worker with its built assets", async () => {
    const result = await wrangler(["--config", "site/wrangler.toml", "--assets", out]);
    expect(result.stdout).toContain("env.ASSETS");
    expect(result.stdout).toContain("--dry-run: exiting now.");
    expect(result.status).toBe(0);
  });

  let controlPlane: Promise<{ outdir: string; result: Ran }> | undefined;
  const bundleControlPlane = () =>
    (controlPlane ??= (async () => {
      const outdir = mkdtempSync(join(dir, "bundle-"));
      // The environment that is deployed (docs/deploy.md); naming none, wrangler warns that wrangler.toml has several.
      return { outdir, result: await wrangler(["--env", "production"], outdir) };
    })());

  it("bundles the control plane Worker within its budget: the script under 320 KiB gzip (issue 31 moved it from 256 for maintained protocol libraries, issue 33 to 368 for the assistant's documentation index, issue 47 back to 320 when the index and the YAML library left the script for modules beside it; bench:startup prints it)", async () => {
    const { outdir, result } = await bundleControlPlane();
    // The workflow reader's YAML library is a module of the upload, imported on the first dispatch, not part of the script.
    const script = readFileSync(join(outdir, "index.js"), "utf8");
    expect(readFileSync(join(outdir, "yaml-library.mjs"), "utf8")).toContain("Map keys must be unique");
    expect(script).not.toContain("Map keys must be unique");
    expect(script).toMatch(/import\("\.\/yaml-library\.mjs"\)/);
    expect(result.stdout).toContain("env.RATE_LIMITER");
    // wrangler warns of a field it does not know (a misspelt placement or limit) and goes on.
    expect(result.stdout + result.stderr).not.toContain("WARNING");
    expect(result.stdout).toContain("--dry-run: exiting now.");
    expect(result.status).toBe(0);
    expect(gzipSync(readFileSync(join(outdir, "index.js"))).length).toBeLessThan(320 * 1024);
  });

  it("minifies names, and `svc frames` puts a frame of the upload back at its place in our source by the upload's source map", async () => {
    const { outdir } = await bundleControlPlane();
    const code = readFileSync(join(outdir, "index.js"), "utf8");
    expect(code).not.toContain("function diagnose(");
    // A frame in DatabaseUnreachable's constructor, as the portal's sample shows it.
    const sentence = "The database could not be reached.";
    const before = code.slice(0, code.indexOf(sentence)).split("\n");
    const sample = join(dir, "sample.json");
    writeFileSync(sample, JSON.stringify({ frames: [`at Xe (index.js:${before.length}:${before.at(-1)!.length + 1})`] }));
    const sourceLine =
      readFileSync(join(ROOT, "db/neon.ts"), "utf8")
        .split("\n")
        .findIndex((line) => line.includes(sentence)) + 1;
    const mapped = await run(["--import", "tsx", "cli/svc.ts", "frames", "--map", join(outdir, "index.js.map"), sample]);
    expect(mapped).toMatchObject({ status: 0, stdout: expect.stringMatching(new RegExp(`^at Xe \\(db/neon\\.ts:${sourceLine}:\\d+\\)\\n$`)) });
    const none = await run(["--import", "tsx", "cli/svc.ts", "frames", "--map", join(outdir, "index.js.map"), join(ROOT, "package.json")]);
    expect(none).toMatchObject({ status: 1, stderr: expect.stringContaining("No frames found") });
  });
});

describe("npm run site:check", () => {
  let server: Server;
  let served: unknown = null;
  let origin = "";

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url !== "/openapi.json" || served === null) return void response.writeHead(404).end();
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(served));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const check = (...args: string[]) => run(["--import", "tsx", "site/check.ts", ...args]);

  it("passes when the deployment serves the pinned API version", async () => {
    served = readOut("openapi.json");
    const result = await check(origin, join(out, "openapi.json"));
    expect(result.stdout).toMatch(/agree: 1\.0\.0/);
    expect(result.status).toBe(0);
  });

  it("fails when the deployment serves another API version", async () => {
    const doc = readOut("openapi.json");
    served = { ...doc, info: { ...doc.info, version: "2.0.0" } };
    const result = await check(origin, join(out, "openapi.json"));
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/pins 1\.0\.0.*serves 2\.0\.0/);
  });

  it("fails when the description cannot be read or nothing is pinned", async () => {
    served = null;
    expect((await check(origin, join(out, "openapi.json"))).status).toBe(2);
    expect((await check(origin, join(dir, "missing.json"))).status).toBe(2);
    expect((await check()).status).toBe(2);
  });
});
