// An operator command whose database refuses the connection (the local stack not running) says so in
// one sentence naming the variable and `npm start`, and exits 69: no driver message, no stack trace.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { databaseUnreachableSentence } from "../../cli/database-unreachable";
import { freePort } from "../../local/free-port";

const BIN = fileURLToPath(new URL("../../cli/bin.mjs", import.meta.url));

describe("an operator command without a running database", () => {
  it("says the local database is not running, how to start it and which variable names it", async () => {
    const port = await freePort();
    const run = spawnSync(process.execPath, [BIN, "orgs", "create", "nobody-home"], {
      env: { PATH: process.env.PATH, SVC_DATABASE_URL: `postgres://svc_app:x@127.0.0.1:${port}/svc` },
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(run.status).toBe(69);
    expect(run.stderr.trim()).toBe(
      `Nothing answers at 127.0.0.1:${port}, the database SVC_DATABASE_URL names: the local database is not running. Start it with \`npm start\` (in another shell; it runs until Ctrl-C), or set SVC_DATABASE_URL to a PostgreSQL that runs.`,
    );
    expect(run.stdout).toBe("");
  });

  it("names the variable whose address was refused, by port for a loopback name, and leaves other errors alone", () => {
    const refused = Object.assign(
      new AggregateError([Object.assign(new Error("connect ECONNREFUSED ::1:54329"), { code: "ECONNREFUSED", address: "::1", port: 54329 })], ""),
      {
        code: "ECONNREFUSED",
      },
    );
    const env = { SVC_MIGRATION_DATABASE_URL: "postgres://m@localhost:54329/svc", SVC_ADMIN_DATABASE_URL: "postgres://a@db.example.com:54329/svc" };
    expect(databaseUnreachableSentence(refused, env)).toContain("[::1]:54329, the database SVC_MIGRATION_DATABASE_URL names");
    const remote = Object.assign(new Error("connect ECONNREFUSED 10.0.0.9:5432"), { code: "ECONNREFUSED", address: "10.0.0.9", port: 5432 });
    expect(databaseUnreachableSentence(remote, { SVC_DATABASE_URL: "postgres://u@10.0.0.9/svc" })).toBe(
      "The database at 10.0.0.9:5432, which SVC_DATABASE_URL names, refuses connections: check that it runs and that SVC_DATABASE_URL names it.",
    );
    expect(databaseUnreachableSentence(new Error("relation does not exist"), env)).toBeNull();
  });
});
