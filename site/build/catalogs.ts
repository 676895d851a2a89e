// The published catalogs' identifiers never change between releases: each identifier keeps the
// meaning it was published with (an error code its HTTP status, a lint finding its hazard). The
// committed lists in site/published/ are what was published; the build compares the catalogs with
// them and fails when an identifier disappears or changes meaning. New identifiers are reported and
// recorded with `npm run site:build -- --record`.
export type Meanings = Record<string, string>;

export interface Comparison {
  missing: string[];
  changed: Array<{ id: string; was: string; now: string }>;
  added: string[];
}

export function compareWithPublished(current: Meanings, published: Meanings): Comparison {
  return {
    missing: Object.keys(published)
      .filter((id) => !(id in current))
      .sort(),
    changed: Object.keys(published)
      .filter((id) => id in current && current[id] !== published[id])
      .sort()
      .map((id) => ({ id, was: published[id]!, now: current[id]! })),
    added: Object.keys(current)
      .filter((id) => !(id in published))
      .sort(),
  };
}

/** Sentences for a person saying what broke the promise; empty when nothing did. */
export function violations(catalog: string, comparison: Comparison): string[] {
  return [
    ...comparison.missing.map((id) => `${catalog}: the published identifier ${id} is gone; identifiers never disappear (restore it).`),
    ...comparison.changed.map(
      ({ id, was, now }) => `${catalog}: the published identifier ${id} changed meaning from "${was}" to "${now}"; give the new meaning a new identifier.`,
    ),
  ];
}

export const errorMeanings = (errors: ReadonlyArray<{ code: string; status: number }>): Meanings =>
  Object.fromEntries(errors.map((entry) => [entry.code, `HTTP ${entry.status}`]));

export const lintMeanings = (findings: ReadonlyArray<{ id: string; hazard: string }>): Meanings =>
  Object.fromEntries(findings.map((finding) => [finding.id, finding.hazard]));

/** Problems of the lint catalogue itself: identifiers well formed and unique. */
export function lintCatalogueFaults(findings: ReadonlyArray<{ id: string }>): string[] {
  const seen = new Set<string>();
  const faults: string[] = [];
  for (const { id } of findings) {
    if (!/^ML\d{3}$/.test(id)) faults.push(`lint-findings: ${id} is not of the form ML and three digits.`);
    if (seen.has(id)) faults.push(`lint-findings: ${id} appears twice.`);
    seen.add(id);
  }
  return faults;
}
