import { readFileSync } from "node:fs";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    reporters: ["default", "./test/setup/fail-on-unhandled.ts"],
    projects: [
      {
        // The Worker inside workerd against a real PostgreSQL and HTTP fakes.
        plugins: [
          cloudflareTest(({ inject }) => ({
            main: "./worker/index.ts",
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { bindings: inject("workerBindings") },
          })),
        ],
        test: {
          name: "worker",
          // Vitest runs one file at a time on two cores (its default is cores - 1); these files mostly wait on
          // PostgreSQL and workerd, so two at once take far less time. The node project, in the same group, must agree.
          maxWorkers: 2,
          // One isolate and one module cache for all the files a worker runs: each file no longer imports the
          // Worker's modules again into a fresh runtime (seconds a file). Files share module state, so a test
          // leaves nothing behind that another could see (test/README.md).
          isolate: false,
          globalSetup: ["./test/setup/global.ts"],
          setupFiles: ["./test/setup/module-runner.ts", "./test/setup/units-of-work.ts"],
          include: ["test/**/*.test.ts"],
          testTimeout: 20_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Pure logic in Node: modules exercised without the Worker, the database or HTTP (test/README.md).
        // Migrations, the engine's workflow and the assistant's index load as text, as wrangler's Text rule loads them into the Worker.
        plugins: [
          {
            name: "text-modules",
            enforce: "pre",
            // Read in `load`: Vite's own asset handling would answer a .txt with its address before any transform.
            load: (id) => (/\.(sql|yml|txt)$/.test(id) ? `export default ${JSON.stringify(readFileSync(id, "utf8"))};` : undefined),
          },
        ],
        test: {
          name: "node",
          maxWorkers: 2,
          environment: "node",
          include: ["test/**/*.node.ts"],
          // As the worker project's: argon2id hashing is CPU-bound, and the cores are shared with workerd.
          testTimeout: 20_000,
        },
      },
      {
        // The site host's build and deploy check, run as commands in Node (issue 17).
        test: {
          name: "site",
          // Beside the other two of its group: builds and commands that mostly wait on their children.
          maxWorkers: 2,
          environment: "node",
          include: ["test/site/**/*.site.ts"],
          // Last: its commands (builds, bundles) would compete with workerd and Chromium for the cores.
          sequence: { groupOrder: 2 },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The fault suite (test/faults/README.md): the Worker's deploy bundle in workerd against a stack of
        // its own, whose database connections it terminates and whose server it freezes. Last and alone:
        // its deadlines are behaviour, and nothing else may compete for the cores while they are measured.
        test: {
          name: "faults",
          environment: "node",
          include: ["test/faults/**/*.faults.ts"],
          sequence: { groupOrder: 3 },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The release check (test/releases/README.md): the previous release's deploy bundle in workerd against a
        // stack of this checkout's migrations, and this release's through PgBouncer. Beside the site's and the
        // deploy's projects, whose builds are of the same kind and none of which measures time; before the
        // fault suite, which must run alone.
        test: {
          name: "releases",
          // Beside the other two of its group: builds and commands that mostly wait on their children.
          maxWorkers: 2,
          environment: "node",
          include: ["test/releases/*.release.ts"],
          sequence: { groupOrder: 2 },
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The deploy's rehearsal (docs/deploy.md): a local stack, the builds and both Workers' upload bundles, the
        // control plane's served by Miniflare. Beside the site's project, whose commands are of the same kind:
        // after the worker project and e2e, before the fault suite, which must run alone.
        test: {
          name: "deploy",
          // Beside the other two of its group: builds and commands that mostly wait on their children.
          maxWorkers: 2,
          environment: "node",
          include: ["test/deploy/**/*.deploy.ts"],
          sequence: { groupOrder: 2 },
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        // The console in a real headless Chromium against the local stack under `wrangler dev`.
        test: {
          name: "e2e",
          environment: "node",
          globalSetup: ["./test/e2e/setup/global.ts"],
          include: ["test/e2e/**/*.e2e.ts"],
          // After the worker project, so Chromium and wrangler do not compete with it for the cores.
          sequence: { groupOrder: 1 },
          // Two files at once: each mostly waits on the browser, the Worker and PostgreSQL, and every file
          // works in organizations and logins of its own (test/README.md).
          maxWorkers: 2,
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
