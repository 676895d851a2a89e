// `npm run deploy:rehearse` (deploy/rehearsal.ts): production's deploy end to end on this machine. The
// configuration check of wrangler.toml [env.production.vars] and a secrets file of the template's shape,
// both builds, the migrations against a local stack, both Workers bundled as `wrangler deploy` uploads
// them, and the control plane's bundle served and smoke-tested: /readyz reports the stamped version and
// commit. What needs the accounts is printed with its exact command. About 20 s on a 2-core machine.
import { existsSync } from "node:fs";
import { expect, it, vi } from "vitest";
import { rehearse } from "../../deploy/rehearsal";

it("rehearses production's deploy: every local step passes, the served bundle's /readyz reports the stamp, the accounts' steps are printed", async () => {
  const said: string[] = [];
  let output = "";
  // `svc config check` prints what it decided, the local stack a note: kept with the commands' output.
  for (const method of ["log", "error", "warn"] as const) vi.spyOn(console, method).mockImplementation((line: unknown) => void (output += `${String(line)}\n`));
  const ok = await rehearse({ env: "production", io: { say: (line) => said.push(line), output: (text) => void (output += text) } });
  vi.restoreAllMocks();
  const transcript = said.join("\n");
  expect(ok, `${transcript}\n\n${output}`).toBe(true);

  const [, version, commit] = /SVC_VERSION=(\S+) and SVC_COMMIT=([0-9a-f]{40})/.exec(transcript) ?? [];
  expect(commit).toBeDefined();
  // The configuration of production, as the Worker will read it: every extension the template configures is on.
  expect(output).toMatch(/"codehostApp": "on",\s+"billing": "on",\s+"magicLink": "on"/);
  // The stack's migrations were applied when it started: applying them again changes nothing.
  expect(output).toContain("no pending migrations");
  // Both upload bundles, with their bindings and the stamp (wrangler hides a --var's value in its table).
  expect(output).toMatch(/env\.SVC_VERSION \("\(hidden\)"\)[\s\S]*env\.SVC_COMMIT \("\(hidden\)"\)/);
  expect(output).toContain('env.SVC_APP_BASE_URL ("https://cp.example.com")');
  expect(output).toContain("env.ASSETS");
  expect(transcript).toContain(`/readyz: 200, ready, version ${version}, commit ${commit}`);

  const printed = [...transcript.matchAll(/\$ (.+)\n {2}\(needs the real accounts: printed, not run\)/g)].map((match) => match[1]!);
  expect(printed).toEqual([
    expect.stringMatching(/^npx wrangler secret bulk \/\S+\/secrets\.production\.json --env production$/),
    expect.stringMatching(
      new RegExp(
        `^npx wrangler deploy --env production --assets /\\S+/console --outdir /\\S+/control-plane --var SVC_VERSION:${version} --var SVC_COMMIT:${commit}$`,
      ),
    ),
    expect.stringMatching(/^npx wrangler deploy --config site\/wrangler.toml --env production --assets \/\S+\/site --outdir \/\S+\/site-worker$/),
    "curl -sS https://cp.example.com/readyz",
    "curl -sS https://www.example.com/api",
  ]);

  const [, folder] = /against a local stack in (\S+) /.exec(transcript) ?? [];
  expect(folder && existsSync(folder)).toBe(false);
});
