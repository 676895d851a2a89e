// The person behind a code-host account or an address (worker/people/store.ts): keyed by the code
// host's immutable numeric id, never by a login someone else can take; an e-mail link's person is the
// address's own, never a code-host account's with the same address.
import { describe, expect, inject, it } from "vitest";
import { personContext, personForEmail, upsertCodehostPerson } from "../../worker/people/store";
import { appPool } from "../support/sql";

let nextAccountId = 2_000_000_000 + Math.floor(Math.random() * 1e8);

async function withPool<T>(work: (connect: ReturnType<typeof appPool>["connect"]) => Promise<T>): Promise<T> {
  const pool = appPool(inject("database"));
  try {
    return await work(pool.connect);
  } finally {
    await pool.end();
  }
}

const account = (id: number, login: string, email: string | null = null) => ({ id, login, name: login, email, avatarUrl: null });

describe("people", () => {
  it("finds a code-host account's person by its numeric id, whatever its login becomes, and a reused login is someone else", async () => {
    await withPool(async (connect) => {
      const id = ++nextAccountId;
      const login = `person-${id}`;
      const first = await upsertCodehostPerson(connect, account(id, login));
      const renamed = await upsertCodehostPerson(connect, account(id, `${login}-renamed`));
      expect(renamed).toBe(first);
      expect((await personContext(connect, first)).person.login).toBe(`${login}-renamed`);
      // Another account that takes the freed login is another person, and the first keeps theirs.
      const other = await upsertCodehostPerson(connect, account(++nextAccountId, login));
      expect(other).not.toBe(first);
      expect((await personContext(connect, first)).person.login).toBe(`${login}-renamed`);
      expect((await personContext(connect, other)).organizations).toEqual([]);
    });
  });

  it("gives an address's sign-in link one person of its own, never the code-host account's with that address", async () => {
    await withPool(async (connect) => {
      const email = `someone-${crypto.randomUUID()}@example.test`;
      const codehostPerson = await upsertCodehostPerson(connect, account(++nextAccountId, `mailer-${nextAccountId}`, email));
      const linked = await personForEmail(connect, email);
      expect(linked).not.toBe(codehostPerson);
      expect(await personForEmail(connect, email)).toBe(linked);
      expect((await personContext(connect, linked)).person).toMatchObject({ email, login: null });
    });
  });
});
