// Whether the assistant answers this caller, and their day's figures: what assistant.status answers
// and what the ask route checks before it counts anything.
import type { Role } from "../../db/schema";
import type { Config } from "../config/types";
import { DAILY_REQUESTS, DAILY_TOKENS, nextReset, remaining, type DayUsage } from "./limits";

interface Figures {
  requests: number;
  tokens: number;
}

/** What assistant.status answers. */
export interface AssistantStatus {
  /** Whether the installation has the assistant's model key. */
  on: boolean;
  /** Whether the caller may ask: on, and an owner of the organization. */
  available: boolean;
  /** Why not, as a sentence (naming the variable when off); null when available. */
  reason: string | null;
  /** Per owner per UTC day. */
  limits: Figures;
  /** Today: requests counted; tokens used by answers and reserved by answers in flight. */
  used: Figures;
  remaining: Figures;
  /** The next 00:00 UTC. */
  resetsAt: string;
  /**
   * Whether the model that answers is on this machine (its address is a loopback one): under
   * `npm start`, the fake messages provider, whose answers are canned, not a model's.
   */
  localModel: boolean;
}

export const KEY_VARIABLE = "SVC_CMS_MODEL_API_KEY";

export const OFF_SENTENCE = `The website assistant is off: this installation has no model key for it (the operator sets ${KEY_VARIABLE}).`;
export const OWNERS_SENTENCE = "The website assistant answers the organization's owners only.";

/** Whether the assistant is on in this installation: the operator set its model key. */
export const assistantIsOn = (config: Config): boolean => config.cmsModelApiKey !== null;

/** Why `role` cannot ask here, or null when it can. */
export const unavailableReason = (config: Config, role: Role): string | null =>
  !assistantIsOn(config) ? OFF_SENTENCE : role !== "owner" ? OWNERS_SENTENCE : null;

export function statusOf(config: Config, role: Role, usage: DayUsage, now: Date): AssistantStatus {
  const reason = unavailableReason(config, role);
  return {
    on: assistantIsOn(config),
    available: reason === null,
    reason,
    limits: { requests: DAILY_REQUESTS, tokens: DAILY_TOKENS },
    used: { requests: usage.requests, tokens: usage.usedTokens + usage.reservedTokens },
    remaining: remaining(usage),
    resetsAt: nextReset(now).toISOString(),
    localModel: isLoopback(config.modelProviders.messagesApiBase),
  };
}

function isLoopback(address: string): boolean {
  let host = "";
  try {
    host = new URL(address).hostname;
  } catch {}
  return host === "localhost" || host === "[::1]" || host.startsWith("127.");
}
