// Operator passwords: argon2id (m = 19 MiB, t = 2, p = 1) in a self-describing PHC string, salted per
// password, compared in constant time; PBKDF2 hashes made before still verify and are marked for
// rehashing; and the rules a new password must meet.
import { describe, expect, it } from "vitest";
import { foldLogin, hashPassword, needsRehash, passwordProblem, verifyPassword } from "../../worker/operators/password";
import { pbkdf2Hash } from "../support/pbkdf2-hash";

const PASSWORD = "a long enough password";
const PHC = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$([A-Za-z0-9+/]{22})\$([A-Za-z0-9+/]{43})$/;

describe("operator password hashing", () => {
  it("stores argon2id with its parameters and a 16-byte salt in the value, salts every hash, and verifies only the right password", async () => {
    const first = await hashPassword(PASSWORD);
    const second = await hashPassword(PASSWORD);
    expect(first).toMatch(PHC);
    expect(first).not.toBe(second);
    expect(await verifyPassword(PASSWORD, first)).toBe(true);
    expect(await verifyPassword(PASSWORD, second)).toBe(true);
    expect(await verifyPassword("a long enough passworD", first)).toBe(false);
    expect(needsRehash(first)).toBe(false);
  });

  it("matches nothing with a malformed stored value or parameters past what a sign-in may spend", async () => {
    const stored = await hashPassword(PASSWORD);
    for (const broken of [
      "plain-text",
      "",
      stored.replace("$argon2id$", "$argon2i$"),
      stored.replace("m=19456", "m=1048576"),
      stored.replace("t=2", "t=99"),
      stored.replace("p=1", "p=0"),
      stored.slice(0, -1) + "=",
      `${stored.split("$").slice(0, 4).join("$")}$A$${stored.split("$")[5]}`,
    ]) {
      expect({ broken, verified: await verifyPassword(PASSWORD, broken) }).toEqual({ broken, verified: false });
    }
  });

  it("still verifies a PBKDF2 hash made before (at most 100,000 iterations) and marks it for rehashing", async () => {
    const old = await pbkdf2Hash(PASSWORD);
    expect(await verifyPassword(PASSWORD, old)).toBe(true);
    expect(await verifyPassword("a long enough passworD", old)).toBe(false);
    expect(await verifyPassword(PASSWORD, old.replace("$100000$", "$100001$"))).toBe(false);
    expect(needsRehash(old)).toBe(true);
    // Weaker argon2id parameters than today's are rehashed too.
    expect(needsRehash((await hashPassword(PASSWORD)).replace("t=2", "t=1"))).toBe(true);
  });
});

describe("operator logins as the database compares them", () => {
  it("folds ASCII case, and is null for text no login can be (the table holds logins to ASCII letters, digits, dot, dash, underscore)", () => {
    expect(foldLogin("Admin")).toBe("admin");
    expect(foldLogin("ADMIN")).toBe(foldLogin("admin"));
    // Look-alikes that JavaScript's toLowerCase (and some database locales) fold onto ASCII.
    expect(foldLogin("\u212Aate")).toBeNull(); // KELVIN SIGN
    expect(foldLogin("ADM\u0130N")).toBeNull(); // LATIN CAPITAL LETTER I WITH DOT ABOVE
    expect(foldLogin("")).toBeNull();
  });
});

describe("a new operator password", () => {
  it("has at least 12 characters and no leading or trailing whitespace", () => {
    expect(passwordProblem("twelve chars")).toBeNull();
    expect(passwordProblem("eleven char")).toMatch(/at least 12 characters/);
    expect(passwordProblem(" twelve chars")).toMatch(/whitespace/);
    expect(passwordProblem("twelve chars\t")).toMatch(/whitespace/);
    // Characters, not bytes or UTF-16 units: 12 emoji are 12 characters.
    expect(passwordProblem("🔑".repeat(11))).toMatch(/at least 12/);
    expect(passwordProblem("🔑".repeat(12))).toBeNull();
  });
});
