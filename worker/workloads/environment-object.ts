// The environment's object as workloads reach it: the calls it serves for claims, heartbeats and the
// workload alarm, declared on its interface (worker/object-interfaces.ts), and the Worker's way to make them.
import type { Env } from "../env";
import { forgetTokenOrg } from "../auth";
import type { ErrorCode } from "../http/catalog";
import type { GateSide } from "../http/context";
import { askEnvironment, environmentObject } from "../object-calls";
import type { ObjectAnswer } from "../object-interfaces";
import { Refusal } from "../http/refusal";
import type { ClaimedRun } from "./claim";
import type { Heartbeat } from "./heartbeat";

/** A claim as the route hands it over: the token is checked in the object, in the claim's transaction. */
export interface ClaimRequest {
  orgId: string;
  envId: string;
  tokenHash: string;
  /** The claim route's side of the required-plan gate. */
  gate: GateSide;
  /** The engine's id for this claim: a retry with it answers the run the first one took. */
  claimId?: string;
}

/** A refusal crosses the object's boundary as data (an RPC keeps an error's message, not its class). */
export type ObjectRefusal = { code: ErrorCode; message: string; retryAfterSeconds: number | null } | null;

export interface ClaimOutcome {
  run: ClaimedRun | null;
  refused: ObjectRefusal;
}

/** A heartbeat as the route hands it over, for a run this isolate handed out (held-runs.ts). */
export interface HeartbeatRequest extends Omit<ClaimRequest, "claimId"> {
  runId: string;
  leaseId: string;
}

export type HeartbeatOutcome = { beat: Heartbeat; refused: null } | { beat: null; refused: NonNullable<ObjectRefusal> };

declare module "../object-interfaces" {
  interface EnvironmentApi {
    /** Claims the next run waiting in the environment for the request's engine token. */
    claim(request: ClaimRequest): Promise<ObjectAnswer<ClaimOutcome>>;
    /** Extends the lease and deadline of a run of the environment for the request's engine token, if it holds the lease. */
    heartbeat(request: HeartbeatRequest): Promise<ObjectAnswer<HeartbeatOutcome>>;
    /** Arms the alarm for a run just requested on this environment. */
    wake(orgId: string, envId: string): Promise<ObjectAnswer<null>>;
  }
}

/** Claims in the environment's object, which checks the token in the claim's own transaction. */
export const claimInEnvironment = (env: Env, request: ClaimRequest) =>
  askEnvironment(() => environmentObject(env, request.orgId, request.envId).claim(request));

/** A heartbeat in the environment's object, which checks the token in the heartbeat's own transaction. */
export const heartbeatInEnvironment = (env: Env, request: HeartbeatRequest) =>
  askEnvironment(() => environmentObject(env, request.orgId, request.envId).heartbeat(request));

/** Raises a refusal the object answered; a token it found no longer live, this isolate forgets too (the object may run in another). */
export function refusedByObject({ code, message, retryAfterSeconds }: NonNullable<ObjectRefusal>, tokenHash: string): never {
  if (code === "unauthenticated") forgetTokenOrg(tokenHash);
  throw new Refusal(code, message, retryAfterSeconds ?? undefined);
}

/** Arms the environment's alarm for a run just requested (committed first: the alarm reads it). */
export const wakeEnvironment = (env: Env, orgId: string, envId: string) => askEnvironment(() => environmentObject(env, orgId, envId).wake(orgId, envId));
