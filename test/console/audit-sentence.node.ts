// The audit log in sentences: who did what to what, details in words, an unknown action as its code.
import { describe, expect, it } from "vitest";
import { auditDetails, auditSentence } from "../../console/src/components/audit-sentence";

describe("auditSentence", () => {
  it("says who did what to what, by name where the details give one and an id shortened where not", () => {
    expect(
      auditSentence({ action: "token.created", actor: "alice", target: "3f2a91c0-1111-4222-8333-944455556666", data: { kind: "engine", name: "ci engine" } }),
    ).toBe("alice created the token ci engine");
    expect(auditSentence({ action: "token.revoked", actor: "alice", target: "3f2a91c0-1111-4222-8333-944455556666", data: null })).toBe(
      "alice revoked the token 3f2a91c0…",
    );
    expect(auditSentence({ action: "member.role_changed", actor: "alice", target: "bob", data: { from: "member", to: "admin" } })).toBe(
      "alice changed bob's role from member to admin",
    );
    expect(auditSentence({ action: "session.signed_in", actor: "bob", target: null, data: { method: "github" } })).toBe("bob signed in");
    expect(
      auditSentence({
        action: "repository_claim.unproven",
        actor: "control plane",
        target: "3f2a91c0-1111-4222-8333-944455556666",
        data: { repository: "acme/shop" },
      }),
    ).toBe("control plane marked the claim on acme/shop unproven");
  });

  it("reads an action it does not know as its code, so nothing recorded is hidden", () => {
    expect(auditSentence({ action: "future.thing", actor: "op", target: "x", data: null })).toBe("op: future.thing (x)");
  });
});

describe("auditDetails", () => {
  it("writes each detail as words and its value, lists joined", () => {
    expect(auditDetails({ method: "github", clientAddress: "203.0.113.9", scopes: ["a", "b"], nested: { k: 1 } })).toBe(
      'method: github; client address: 203.0.113.9; scopes: a, b; nested: {"k":1}',
    );
    expect(auditDetails(null)).toBe("");
  });
});
