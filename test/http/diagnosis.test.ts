// A database that cannot be reached, or refuses the session, is diagnosed as unreachable, against the
// real PostgreSQL; the diagnosis of errors alone is in diagnosis.node.ts.
import { describe, expect, inject, it } from "vitest";
import { openPool, useBridge, withClient } from "../../db/neon";
import { send, statement, type Statement } from "../../db/pipeline";
import { diagnose } from "../../worker/http/diagnosis";

describe("diagnose", () => {
  it("calls a database that cannot be connected to unreachable", async () => {
    useBridge(inject("database").bridge);
    const pool = openPool("postgres://svc_app:x@127.0.0.1:1/svc", "svc_app", 1);
    // The driver pipelines its start: the connection's first statement (a transaction's BEGIN, sent on
    // the raw client) is what fails.
    const failure = await (async () => {
      const connection = await pool.connect();
      try {
        await send(connection.raw, statement`SELECT 1`);
        return null;
      } finally {
        connection.release();
      }
    })().catch((error: unknown) => error);
    await pool.end();
    expect(diagnose(failure)).toMatchObject({ kind: "database_unreachable", errorClass: expect.arrayContaining(["DatabaseUnreachable"]) });
  });

  it("calls a session PostgreSQL refuses (a wrong password) unreachable, and a refused statement not", async () => {
    useBridge(inject("database").bridge);
    const firstStatement = async (url: string, first: Statement) => {
      const pool = openPool(url, "svc_app", 1);
      try {
        const connection = await pool.connect();
        try {
          return await send(connection.raw, first).then(() => null);
        } finally {
          connection.release();
        }
      } catch (error) {
        return error;
      } finally {
        await pool.end();
      }
    };
    const wrong = new URL(inject("database").app);
    wrong.password = "not-the-password";
    expect(diagnose(await firstStatement(wrong.toString(), statement`SELECT 1`))).toMatchObject({
      kind: "database_unreachable",
      errorClass: ["DatabaseUnreachable", "DatabaseError"],
      sqlState: "28P01",
    });
    expect(diagnose(await firstStatement(inject("database").app, statement`SELECT 1 / 0`))).toMatchObject({ kind: "internal", sqlState: "22012" });
  });

  it("calls a database unreachable when a client of its own (migrations, Cron jobs) cannot connect or is refused", async () => {
    useBridge(inject("database").bridge);
    const wrong = new URL(inject("database").app);
    wrong.password = "not-the-password";
    for (const url of ["postgres://svc_app:x@127.0.0.1:1/svc", wrong.toString()]) {
      const failure = await withClient(url, (client) => client.query("SELECT 1")).then(
        () => null,
        (error: unknown) => error,
      );
      expect(diagnose(failure)).toMatchObject({ kind: "database_unreachable", errorClass: expect.arrayContaining(["DatabaseUnreachable"]) });
    }
  });
});
