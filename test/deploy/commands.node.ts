// No invented command: every `npx wrangler ...` that the deploy runs (its --dry-run, production's and a
// preview's) or that docs/deploy.md, docs/operating.md and the workflows tell someone to run names a
// command wrangler 4.86 has, with flags its own --help lists; every `npm run deploy -- ...` passes
// options the deploy takes; every `npm run <script>` names a script of package.json.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { experimental_getWranglerCommands } from "wrangler";
import { OPTIONS } from "../../deploy/options";
import { deploySteps, resolveDeployment } from "../../deploy/plan";
import { ROOT } from "../../deploy/variables";

const run = promisify(execFile);
const WORKFLOWS = ".github/workflows/";
const SOURCES = ["docs/deploy.md", "docs/operating.md", ...readdirSync(ROOT + WORKFLOWS).map((file) => WORKFLOWS + file)];
const text = (file: string) => readFileSync(ROOT + file, "utf8").replace(/\\\n\s*/g, " ");

/** The words after each `<prefix>` in a text, up to a backtick, the line's end or a shell operator, quotes dropped. */
const invocations = (source: string, prefix: RegExp) =>
  [...source.matchAll(new RegExp(`${prefix.source}([^\`\\n|&;#)]*)`, "g"))].map((match) => match[1]!.replace(/["']/g, "").trim().split(/\s+/).filter(Boolean));

const { registry } = experimental_getWranglerCommands();

/** The command a line names: its leading words that are wrangler's commands and subcommands. */
function pathOf(words: string[]): string[] {
  const path: string[] = [];
  for (let node = registry.subtree.get(words[0] ?? ""); node; node = node.subtree.get(words[path.length] ?? "")) path.push(words[path.length]!);
  return path;
}

/** The command's --help: whether it names that very command, and the flags it lists. */
async function helpFor(path: string[]): Promise<{ usage: string; flags: Set<string> }> {
  const { stdout } = await run(process.execPath, [`${ROOT}node_modules/wrangler/bin/wrangler.js`, ...path, "--help"], {
    cwd: ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  // An option's line starts with its names (`-e, --env`, `--compatibility-flags, --compatibility-flag`), then two spaces.
  const flags = new Set(
    stdout.split("\n").flatMap((line) =>
      /^\s+-/.test(line)
        ? (line
            .trim()
            .split(/\s{2,}/)[0]!
            .match(/--?[A-Za-z0-9-]+/g) ?? [])
        : [],
    ),
  );
  return { usage: stdout.split("\n")[0]!, flags };
}

/** The deploy's own commands: production's, and a pull request's preview's with every option it takes. */
function deployCommands(): string[][] {
  const io = { say: () => {}, output: () => {} };
  const stamp = { version: "v1", commit: "0".repeat(40), clean: true };
  const preview = {
    env: "preview",
    name: "p",
    siteName: "s",
    databaseHost: "ep-a-pooler.h",
    vars: ["SVC_APP_BASE_URL:https://p", "SVC_SITE_ORIGIN:https://s"],
  };
  return [resolveDeployment({ env: "production" }, stamp), resolveDeployment(preview, stamp)]
    .flatMap((deployment) => deploySteps(deployment, io))
    .flatMap((step) => invocations(step.command, /^npx wrangler /));
}

describe("wrangler commands", () => {
  it("exist in wrangler 4.86 with the flags given, as its --help says", { timeout: 120_000 }, async () => {
    const commands = [...SOURCES.flatMap((file) => invocations(text(file), /\bnpx wrangler /)), ...deployCommands()];
    expect(commands.length).toBeGreaterThan(20);
    // One --help per command, a few at a time (each is a wrangler process).
    const paths = [...new Set(commands.map((command) => pathOf(command).join(" ")))].filter(Boolean);
    const helps = new Map<string, Awaited<ReturnType<typeof helpFor>>>();
    for (let at = 0; at < paths.length; at += 4) {
      await Promise.all(paths.slice(at, at + 4).map(async (path) => helps.set(path, await helpFor(path.split(" ")))));
    }
    const problems: string[] = [];
    for (const command of commands) {
      const path = pathOf(command).join(" ");
      const { usage, flags } = helps.get(path) ?? { usage: "", flags: new Set<string>() };
      if (!new RegExp(`^wrangler ${path}( |$)`).test(usage)) problems.push(`wrangler ${command.join(" ")}: no such command`);
      for (const flag of command.filter((word) => word.startsWith("-")).map((word) => word.split("=")[0]!)) {
        if (!flags.has(flag)) problems.push(`wrangler ${command.join(" ")}: ${flag} is not an option of wrangler ${path}`);
      }
    }
    expect(problems).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(["deploy", "secret bulk", "rollback", "r2 bucket create", "delete"]));
  });
});

describe("npm commands", () => {
  const scripts = Object.keys((JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as { scripts: Record<string, string> }).scripts);

  it("pass `npm run deploy` only options it takes", () => {
    const given = SOURCES.flatMap((file) => invocations(text(file), /\bnpm run (?:--silent )?deploy -- /));
    expect(given.length).toBeGreaterThan(4);
    const unknown = given.flatMap((words) => words.filter((word) => word.startsWith("--") && !Object.hasOwn(OPTIONS, word.slice(2))));
    expect(unknown).toEqual([]);
  });

  it("name scripts package.json has", () => {
    const named = SOURCES.flatMap((file) => [...text(file).matchAll(/\bnpm run (?:--silent )?([a-z][a-z:-]*)/g)].map((match) => match[1]!));
    expect(named).toEqual(expect.arrayContaining(["deploy", "deploy:rehearse", "release:check", "svc"]));
    expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
  });
});
