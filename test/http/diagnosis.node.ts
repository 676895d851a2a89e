/// <reference types="vite/client" />
// Failures are told apart by type and driver fields, never by message text, and described without
// their message.
import { describe, expect, it } from "vitest";
import { DatabaseUnreachable } from "../../db/neon";
import { DeadlinePassed } from "../../db/deadline";
import { EnvironmentObjectFailed, isDurableObjectError, retryOnceIfRetryable } from "../../worker/object-calls";
import { diagnose } from "../../worker/http/diagnosis";

// PostgreSQL's errors as the driver hands them over (its class is not exported by name).
const postgresError = (code: string, constraint?: string) => Object.assign(new Error("row (secret) refused"), { severity: "ERROR", code, constraint });
// The platform's marks on a failed Durable Object call.
const objectError = (marks: { retryable?: boolean; overloaded?: boolean; remote?: boolean }) => Object.assign(new Error("Network connection lost."), marks);

describe("diagnose", () => {
  it("reads SQLSTATE and constraint from the driver's error, wherever it is in the cause chain", () => {
    const wrapped = new Error("Failed query: insert ... params: secret", { cause: postgresError("23505", "tokens_pkey") });
    expect(diagnose(wrapped)).toMatchObject({ kind: "internal", errorClass: ["Error", "DatabaseError"], sqlState: "23505", constraint: "tokens_pkey" });
    expect(diagnose(postgresError("08006")).kind).toBe("database_unreachable");
    expect(diagnose(postgresError("57P01")).kind).toBe("database_unreachable");
    expect(diagnose(postgresError("57014")).kind).toBe("internal"); // a cancelled statement: the database is there
    expect(diagnose(new AggregateError([new Error("refused")])).kind).toBe("database_unreachable");
  });

  it("keeps a Durable Object's failure apart from a database outage, whatever its message says", () => {
    expect(diagnose(objectError({ retryable: true })).kind).toBe("durable_object");
    expect(diagnose(objectError({ remote: true })).kind).toBe("durable_object");
    expect(diagnose(new Error("Network connection lost.")).kind).toBe("internal");
    expect(diagnose(new Error("connection terminated: ECONNREFUSED")).kind).toBe("internal");
    // What an environment object answered as a failure of its own, and as the database's.
    expect(diagnose(new EnvironmentObjectFailed(["TypeError"])).kind).toBe("durable_object");
    expect(diagnose(new DatabaseUnreachable(new DeadlinePassed("An environment's Durable Object", 8_000))).kind).toBe("database_unreachable");
  });

  it("names an error by the name it gives itself: the deployed upload minifies class names", () => {
    class Xe extends Error {
      override readonly name = "SealedKeyUnreadable";
    }
    class Unnamed extends Error {}
    expect(diagnose(new Xe("secret", { cause: new Unnamed() })).errorClass).toEqual(["SealedKeyUnreadable", "Unnamed"]);
    expect(diagnose(new TypeError("x")).errorClass).toEqual(["TypeError"]);
  });

  it("every error class of ours names itself (an error without a name would be diagnosed by its minified class name)", () => {
    const sources = import.meta.glob(["../../worker/**/*.ts", "../../db/**/*.ts", "../../durable-objects/**/*.ts"], {
      query: "?raw",
      import: "default",
      eager: true,
    });
    const declared = Object.entries(sources).flatMap(([file, text]) =>
      [...(text as string).matchAll(/class (\w+) extends (\w+)[^{]*\{([\s\S]*?)\n\}/g)]
        .filter(([, , base]) => base === "Error" || base!.endsWith("Refusal"))
        .map(([, name, , body]) => ({ file, name, named: body!.includes(`name = "${name}"`) || body!.includes(`name: string = "${name}"`) })),
    );
    expect(declared.length).toBeGreaterThan(15);
    expect(declared.filter((error) => !error.named)).toEqual([]);
  });

  it("lists our own frames and nothing of the message, even a message that looks like a frame", () => {
    const error = new Error("name: x\n    at forged (worker/quoted-input.ts:1:1)");
    const { frames } = diagnose(error);
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.join("\n")).not.toContain("forged");
    expect(frames.join("\n")).not.toContain("node_modules");
    expect(JSON.stringify(diagnose(error))).not.toContain("quoted-input");
  });
});

describe("Durable Object calls", () => {
  it("are retried once when the platform marks the failure retryable, never when overloaded or not marked", async () => {
    const attempts = async (marks: Parameters<typeof objectError>[0], failures: number) => {
      let calls = 0;
      const outcome = await retryOnceIfRetryable(async () => {
        calls += 1;
        if (calls <= failures) throw objectError(marks);
        return "projected";
      }).catch((error: unknown) => (isDurableObjectError(error) ? "failed" : "unexpected"));
      return { calls, outcome };
    };
    expect(await attempts({ retryable: true }, 1)).toEqual({ calls: 2, outcome: "projected" });
    expect(await attempts({ retryable: true }, 2)).toEqual({ calls: 2, outcome: "failed" });
    expect(await attempts({ retryable: true, overloaded: true }, 1)).toEqual({ calls: 1, outcome: "failed" });
    expect(await attempts({ remote: true }, 1)).toEqual({ calls: 1, outcome: "failed" });
  });
});
