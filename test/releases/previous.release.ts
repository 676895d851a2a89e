// The previous release on this release's schema (test/releases/README.md): the release db/previous-release
// names, built from its own tree, against a stack migrated with this checkout's migrations, driven as
// engines and the console drive it. And that the check fails when it should: on a release whose code
// calls what a later migration dropped, and on the previous release once a planted migration renames
// what it calls. One stack for the file; the planted migration changes it, so that test runs last.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBenchStack } from "../../bench/local-worker";
import type { LocalStack } from "../../local/stack";
import {
  drivePaths,
  failed,
  formatReport,
  type PathResult,
  plantMigration,
  previousRelease,
  type Release,
  releaseBuilder,
  serveRelease,
  workFolder,
} from "./check";

/** The commit just before migration 0046 dropped svc_upsert_environments, which its ingestion calls. */
const BEFORE_0046 = "7fa8041a736ebccba029807a265236e85c371672";

let dir: string;
let stack: LocalStack;
let build: (commit: string) => Release;

beforeAll(async () => {
  dir = workFolder();
  build = releaseBuilder(dir);
  stack = await startBenchStack(join(dir, "data"));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `commit`'s Worker served against the file's stack and driven for a new organization; its results and the report. */
async function check(commit: string, label: string): Promise<{ results: PathResult[]; report: string }> {
  let output = "";
  const served = await serveRelease(stack, build(commit), dir, (text) => (output += text));
  try {
    const results = await drivePaths(served.base, stack, label, () => output);
    return { results, report: formatReport(commit, results) };
  } finally {
    await served.miniflare.dispose();
  }
}

/** The failed paths as path and status, to compare whole. */
const failures = (results: readonly PathResult[]) => failed(results).map(({ path, status }) => ({ path, status }));

describe("the previous release on this checkout's migrations", () => {
  it("answers every engine and console path it served, each with its effect in the database", async () => {
    const { results, report } = await check(previousRelease(), "release-previous");
    // Compared as one line a path, so that a failure shows the report (statuses, bodies, the Worker's lines) once.
    expect(
      results.filter((result) => result.outcome !== "passed").map((result) => `${result.outcome}: ${result.path}`),
      report,
    ).toEqual([]);
  });
});

describe("the check fails when a migration breaks a release", () => {
  it("fails 7fa8041, whose ingestion calls the function 0046 dropped: its environment events answer 500", async () => {
    const { results, report } = await check(BEFORE_0046, "release-before-0046");
    expect(failures(results), report).toEqual([
      { path: "POST /v1/events: environment.ready of a new environment", status: 500 },
      { path: expect.stringMatching(/^POST \/v1\/events: a mixed batch/), status: 500 },
    ]);
    // The diagnosis names the cause: an undefined function (SQLSTATE 42883).
    expect(failed(results)[0]!.log?.join("\n")).toContain('"sqlState":"42883"');
    // What builds on the environment is reported as not run, not as more failures.
    expect(results.filter((result) => result.outcome === "skipped").map((result) => result.path)).toEqual([
      "POST /v1/events: the same environment moving on (environment.sleeping)",
      "GET /rpc/environments.list (the console, signed in)",
    ]);
  });

  it("fails the previous release once a planted migration renames the function its workload claim calls", async () => {
    // Last in this file: the stack keeps the planted migration. A rename in one release is what the
    // rule forbids (db/README.md, "Releases: expand, then contract"): the previous release still calls
    // svc_claim_run (migrations/0039). Should a later release stop calling it, plant another break here.
    await plantMigration(stack, {
      name: "9999_planted_rename",
      sql: "ALTER FUNCTION svc_claim_run(uuid, text, uuid, integer, integer) RENAME TO svc_claim_workload_run;",
    });
    const { results, report } = await check(previousRelease(), "release-planted");
    expect(failures(results), report).toEqual([{ path: "POST /v1/workloads/claim", status: 500 }]);
    expect(results.filter((result) => result.outcome === "skipped").map((result) => result.path)).toEqual([
      "POST /v1/workloads/runs/{runId}/heartbeat",
      "POST /v1/events: workload.finished of the claimed run",
    ]);
  });
});
