// Which environment a run handed out by this isolate is in, remembered from the claims it answered. A
// heartbeat's path names only the run; knowing its environment lets the heartbeat go to the
// environment's object, which keeps its connections, instead of the request opening one (bench/claim.ts).
// It is not an authorization: the object finds and admits the token and checks the lease in the
// heartbeat's own transaction, as the Worker would. A run this isolate did not hand out (another
// isolate answered its claim, or this one started since) is heartbeated from the Worker.
import { isolateMemory } from "../isolate-memory";

export interface HeldRun {
  orgId: string;
  envId: string;
}

const runs = isolateMemory<string, HeldRun>(10_000);

export const heldRun = (runId: string): HeldRun | undefined => runs.get(runId);
export const rememberHeldRun = (runId: string, where: HeldRun): void => runs.remember(runId, where);
export const forgetHeldRun = (runId: string): void => runs.forget(runId);
