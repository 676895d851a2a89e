// What an environment object does inside its transactions, loaded on the object's first call (an
// isolate's start builds none of it: bench/startup.ts). The rules are the capabilities'; the object
// only runs them on its connections, in its order, with its alarm.
export { claimTransaction, refusalOf } from "../worker/workloads/object-claim";
export { heartbeatTransaction } from "../worker/workloads/object-heartbeat";
export { abandonOverdueInEnvironment, nextDeadline } from "../worker/workloads/abandon";
