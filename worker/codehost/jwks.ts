// The pinned issuer's published signing keys, held per isolate. Only plain data survives a request:
// Workers forbids sharing I/O objects (a pending fetch is one) across requests, so a cold isolate's
// concurrent requests may each fetch once. Fetches are bounded: a timeout, a size limit, and at most
// one fetch per key set within the cooldown however many unknown key ids arrive.
import { assertNoTransaction } from "../../db/transaction";
import type { JWK } from "jose";
import { readAtMost } from "../http/input";
import { log } from "../log";

export interface KeySetPolicy {
  /** A key set older than this is fetched again before a key of it is used. */
  maxAgeMs: number;
  /** No fetch of the same key set within this after the last attempt. */
  cooldownMs: number;
  timeoutMs: number;
  maxBytes: number;
}

export const KEY_SET_POLICY: KeySetPolicy = { maxAgeMs: 10 * 60_000, cooldownMs: 30_000, timeoutMs: 5_000, maxBytes: 64 * 1024 };

export type KeyLookup = { ok: true; key: JWK } | { ok: false; reason: "no_key" | "keys_unavailable" };

interface HeldSet {
  /** The last set fetched successfully; null until one was. */
  keys: JWK[] | null;
  fetchedAt: number;
  attemptedAt: number;
  lastAttemptFailed: boolean;
}

export class IssuerKeys {
  private readonly sets = new Map<string, HeldSet>();

  constructor(private readonly policy: KeySetPolicy = KEY_SET_POLICY) {}

  async find(url: string, kid: string, now = Date.now()): Promise<KeyLookup> {
    let held = this.sets.get(url);
    const known = held?.keys?.find((key) => key.kid === kid);
    if (known && now - held!.fetchedAt < this.policy.maxAgeMs) return { ok: true, key: known };
    if (!held || now - held.attemptedAt >= this.policy.cooldownMs) {
      const fetched = await fetchKeySet(url, this.policy);
      held = {
        keys: fetched ?? held?.keys ?? null,
        fetchedAt: fetched ? now : (held?.fetchedAt ?? 0),
        attemptedAt: now,
        lastAttemptFailed: fetched === null,
      };
      this.sets.set(url, held);
    }
    // A stale key still verifies when the issuer cannot be reached: keys are rotated, not revoked, there.
    const key = held.keys?.find((candidate) => candidate.kid === kid);
    if (key) return { ok: true, key };
    return { ok: false, reason: held.keys === null || held.lastAttemptFailed ? "keys_unavailable" : "no_key" };
  }
}

/** The one cache the exchange uses. */
export const issuerKeys = new IssuerKeys();

const isSigningKey = (key: unknown): key is JWK => {
  const k = key as Record<string, unknown> | null;
  return (
    typeof k === "object" &&
    k !== null &&
    k.kty === "RSA" &&
    typeof k.kid === "string" &&
    typeof k.n === "string" &&
    typeof k.e === "string" &&
    (k.use === undefined || k.use === "sig") &&
    (k.alg === undefined || k.alg === "RS256")
  );
};

async function fetchKeySet(url: string, policy: KeySetPolicy): Promise<JWK[] | null> {
  assertNoTransaction("The code host's key set");
  try {
    const response = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(policy.timeoutMs) });
    const declared = Number(response.headers.get("content-length") ?? 0);
    if (!response.ok || declared > policy.maxBytes) {
      await response.body?.cancel();
      log("warn", "codehost.keys_unavailable", { url, status: response.status, bytes: declared });
      return null;
    }
    // Counted as it streams: a body that declares no length (or a false one) is not read past the limit.
    const bytes = response.body ? await readAtMost(response.body, policy.maxBytes) : new Uint8Array(0);
    if (!bytes) {
      log("warn", "codehost.keys_unavailable", { url, overBytes: policy.maxBytes });
      return null;
    }
    const keys = (JSON.parse(new TextDecoder().decode(bytes)) as { keys?: unknown }).keys;
    return Array.isArray(keys) ? keys.filter(isSigningKey) : [];
  } catch (error) {
    log("warn", "codehost.keys_unavailable", { url, errorName: error instanceof Error ? error.name : typeof error });
    return null;
  }
}
