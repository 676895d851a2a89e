// The pipeline (.github/workflows/): each workflow passes the maintained validator, @action-validator/cli
// (GitHub's published schemas), which fails a broken one; and the workflows do what docs/deploy.md says:
// every pull request runs npm install && npm test and gets a preview on a Neon branch, torn down when it
// closes; main checks the release production serves against its migrations, then deploys.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../../deploy/variables";

const WORKFLOWS = `${ROOT}.github/workflows/`;
/** A GitHub Actions expression as a workflow writes it, `${{ ... }}`. */
const gh = (expression: string) => `\${{ ${expression} }}`;
const files = readdirSync(WORKFLOWS).filter((file) => /\.ya?ml$/.test(file));
const validate = (path: string) => spawnSync(process.execPath, [`${ROOT}node_modules/@action-validator/cli/cli.mjs`, path], { cwd: ROOT, encoding: "utf8" });

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
  if?: string;
}
interface Job {
  needs?: string;
  if?: string;
  container?: string;
  environment?: string;
  env?: Record<string, string>;
  steps: Step[];
}
const workflow = (file: string) =>
  parse(readFileSync(WORKFLOWS + file, "utf8")) as { on: Record<string, { types?: string[]; branches?: string[] }>; jobs: Record<string, Job> };
const runs = (job: Job) => job.steps.flatMap((step) => (step.run ? [step.run] : []));
const uses = (job: Job) => job.steps.flatMap((step) => (step.uses ? [step.uses] : []));

describe("the workflows", () => {
  it("are the pull request's, its preview's cleanup and main's", () => {
    expect(files.sort()).toEqual(["main.yml", "preview-cleanup.yml", "pull-request.yml"]);
  });

  it.each(files)("%s passes @action-validator/cli", (file) => {
    const result = validate(WORKFLOWS + file);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("would fail a workflow with a mistake, naming it (the validator is not a formality)", () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-workflow-"));
    writeFileSync(join(dir, "broken.yml"), "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    stepz:\n      - run: npm test\n");
    const result = validate(join(dir, "broken.yml"));
    rmSync(dir, { recursive: true, force: true });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Additional property 'stepz' is not allowed");
  });
});

describe("what they run", () => {
  it("runs npm install && npm test on every pull request and every push to main, in Debian as root as the suite expects", () => {
    const pullRequest = workflow("pull-request.yml");
    const main = workflow("main.yml");
    expect(pullRequest.on.pull_request!.types).toEqual(["opened", "synchronize", "reopened"]);
    expect(main.on.push!.branches).toEqual(["main"]);
    for (const { jobs } of [pullRequest, main]) {
      expect(runs(jobs.test!)).toEqual(["npm install", "npm test"]);
      expect(jobs.test!.container).toBe("node:20-bookworm");
    }
  });

  it("previews a pull request of this repository on a Neon branch of its own, with Workers of its own, migrated and smoke-tested by npm run deploy", () => {
    const { preview } = workflow("pull-request.yml").jobs;
    expect(preview!.if).toBe("github.event.pull_request.head.repo.full_name == github.repository");
    const branch = preview!.steps.find((step) => step.uses === "neondatabase/create-branch-action@v6")!;
    expect(branch.with).toMatchObject({ branch_name: `preview/pr-${gh("github.event.pull_request.number")}`, role: "neondb_owner" });
    const deploy = preview!.steps.find((step) => step.run?.includes("npm run deploy"))!;
    expect(deploy.env!.SVC_MIGRATION_DATABASE_URL).toBe(gh("steps.branch.outputs.db_url"));
    expect(deploy.env!.POOLED_HOST).toBe(gh("steps.branch.outputs.db_host_pooled"));
    expect(deploy.run).toContain('npm run deploy -- --env preview --name "svc-control-plane-$PREVIEW" --site-name "svc-site-$PREVIEW"');
    expect(deploy.run).toContain('--database-host "$POOLED_HOST"');
  });

  it("deletes a closed pull request's Workers and its Neon branch", () => {
    const { cleanup } = workflow("preview-cleanup.yml").jobs;
    expect(workflow("preview-cleanup.yml").on.pull_request!.types).toEqual(["closed"]);
    expect(runs(cleanup!)).toEqual(
      expect.arrayContaining(['npx wrangler delete "svc-control-plane-$PREVIEW" --force', 'npx wrangler delete "svc-site-$PREVIEW" --force']),
    );
    const deleted = cleanup!.steps.find((step) => step.uses === "neondatabase/delete-branch-action@v3")!;
    expect(deleted.with!.branch).toBe(`preview/pr-${gh("github.event.pull_request.number")}`);
  });

  it("on main, checks the release production serves against this commit's migrations, then deploys production, stamped, keeping the source map", () => {
    const { jobs } = workflow("main.yml");
    expect(jobs["release-check"]!.needs).toBe("test");
    expect(runs(jobs["release-check"]!)).toEqual([
      "npm ci",
      'echo "commit=$(npm run --silent deploy -- --env production --print-serving-commit)" >> "$GITHUB_OUTPUT"',
      `npm run release:check -- "${gh("steps.serving.outputs.commit")}"`,
    ]);
    expect(jobs.deploy!.needs).toBe("release-check");
    expect(jobs.deploy!.environment).toBe("production");
    expect(jobs.deploy!.env!.SVC_MIGRATION_DATABASE_URL).toBe(gh("secrets.SVC_MIGRATION_DATABASE_URL"));
    expect(runs(jobs.deploy!)).toContain("npm run deploy -- --env production");
    expect(uses(jobs.deploy!)).toContain("actions/upload-artifact@v4");
  });
});
