// The enumerations the schema, the validation and the console share: plain values, no drizzle, so the
// browser's bundle can carry them (through worker/shared/enums.ts).
export const PLANS = ["free", "team", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];
