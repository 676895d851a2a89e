// The egress policy's pure rules: what counts as loosening, and how the block replaces the one in the
// project configuration file.
import { describe, expect, it } from "vitest";
import { loosenedBy, renderEgressBlock, withEgressBlock, type EgressPolicy } from "../../worker/proposals/egress";

const policy = (partial: Partial<EgressPolicy>): EgressPolicy => ({ default: "deny", allow: [], deny: [], ...partial });
const rule = (host: string, ports: number[] = []) => ({ host, ports });

describe("loosening", () => {
  it("is nothing when what is newly named was allowed already (a wildcard covers its names)", () => {
    expect(loosenedBy(policy({ allow: [rule("*.example.com")] }), policy({ allow: [rule("*.example.com"), rule("api.example.com", [443])] }))).toEqual([]);
  });

  it("is a deny taken away under an allowing default", () => {
    expect(loosenedBy(policy({ default: "allow", deny: [rule("evil.example")] }), policy({ default: "allow" }))).toEqual(["evil.example"]);
  });

  it("is every port where one port was allowed", () => {
    expect(loosenedBy(policy({ allow: [rule("db.example", [5432])] }), policy({ allow: [rule("db.example")] }))).toEqual(["db.example"]);
  });

  it("is the default turned to allow, naming the hosts no rule names", () => {
    expect(loosenedBy(policy({}), policy({ default: "allow", deny: [rule("metadata.internal")] }))).toEqual(["any host no rule names"]);
  });

  it("is nothing for a change that only denies more", () => {
    expect(loosenedBy(policy({ allow: [rule("a.example"), rule("b.example")] }), policy({ allow: [rule("a.example")], deny: [rule("c.example")] }))).toEqual(
      [],
    );
  });
});

describe("the egress block in the project configuration", () => {
  const block = renderEgressBlock(policy({ allow: [rule("a.example", [443])] }));

  it("is appended to a file that has none, and is the whole of an empty one", () => {
    expect(withEgressBlock("name: shop\n", block)).toBe(`name: shop\n\n${block}`);
    expect(withEgressBlock("", block)).toBe(block);
  });

  it("replaces the block at the end of a file, keeping what comes before", () => {
    expect(withEgressBlock("name: shop\negress:\n  default: allow\n", block)).toBe(`name: shop\n${block}`);
  });

  it("replaces an inline block and keeps a following comment with what it precedes", () => {
    expect(withEgressBlock("egress: {}\n# the engine\nengine: {}\n", block)).toBe(`${block}# the engine\nengine: {}\n`);
  });
});
