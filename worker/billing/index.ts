// The front door of worker/billing/: what other capabilities may use of it
// (test/architecture/capabilities.node.ts). Everything else in the folder is its own.
export { changePlan } from "./plan-change";
export { BillingUnreachable, callBilling, describeBillingAnswer } from "./provider";
