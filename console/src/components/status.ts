// What a state, an outcome or a verdict looks like wherever the console shows one: a word a person
// reads ("Torn down", never the enum `torn_down`) and a tone that colours it and gives it a shape, so
// the eye finds what is broken without reading every row (a colour is never the only sign: the word is
// always there).

/** ok: done and good; danger: broken, needs a person; warn: under way or waiting; quiet: over, nothing to do. */
export type Tone = "ok" | "danger" | "warn" | "quiet";

const TONES: Record<string, Tone> = {
  // Environments.
  ready: "ok",
  failed: "danger",
  queued: "warn",
  creating: "warn",
  sleeping: "quiet",
  torn_down: "quiet",
  // Runs and their outcomes, verdicts.
  running: "warn",
  passed: "ok",
  errored: "danger",
  pass: "ok",
  fail: "danger",
  skip: "quiet",
  // Workload runs.
  requested: "warn",
  accepted: "warn",
  finished: "ok",
  cancelled: "quiet",
  abandoned: "danger",
  // A workload run nobody is moving (Overview's "Needs attention").
  stuck: "danger",
  // Proposals and invitations.
  proposed: "warn",
  approved: "ok",
  rejected: "quiet",
  pending: "warn",
  revoked: "quiet",
  expired: "quiet",
  // Network decisions.
  allowed: "ok",
  denied: "danger",
};

// A verdict's "warn" reads as a warning, not as work under way.
const LABELS: Record<string, string> = { pass: "Passed", fail: "Failed", warn: "Warning", skip: "Skipped" };

/** The word and tone of `value`; a value this table does not know (a newer engine's) reads as itself, quiet. */
export function statusOf(value: string): { label: string; tone: Tone } {
  const tone = value === "warn" ? "warn" : (TONES[value] ?? "quiet");
  const words = value.replaceAll("_", " ");
  return { label: LABELS[value] ?? words.charAt(0).toUpperCase() + words.slice(1), tone };
}

const URGENCY: Record<Tone, number> = { danger: 0, warn: 1, ok: 2, quiet: 3 };

/** `items` with what needs a person first (broken, then under way, then good, then over), each tone in its given order. */
export const byUrgency = <T>(items: readonly T[], statusValue: (item: T) => string): T[] =>
  items
    .map((item, index) => ({ item, index, urgency: URGENCY[statusOf(statusValue(item)).tone] }))
    .sort((a, b) => a.urgency - b.urgency || a.index - b.index)
    .map(({ item }) => item);
