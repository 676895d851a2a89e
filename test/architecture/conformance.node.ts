// The contract (docs/control-plane.md) is kept rule by rule in docs/conformance.md: each rule's row names
// the files that enforce it and the tests that prove it. Read from both documents and the sources, so a
// rule added to the contract without a row, a row whose files moved, or a test that no longer mentions
// what it proves fails here at once.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(ROOT + path, "utf8");

const CONFORMANCE = "docs/conformance.md";
const RULE_HEADER = ["Rule", "Implemented in", "Proved by"];
const NAMESPACE_HEADER = ["Namespace", "Folder"];
const WITHOUT_TEST = "Rules without a test of their own";
const NONE_YET = "none yet";
/** What a test file is called in each vitest project (vitest.config.ts). */
const TEST_FILE = /^test\/.+\.(test|node|e2e|site|faults|release)\.ts$/;

interface Table {
  /** The `##` and `###` headings the table sits under. */
  section: string;
  subsection: string;
  header: string[];
  rows: string[][];
}

/** A table row's cells, split on the pipes that are not escaped. */
const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

/** Every Markdown table of a document, with the headings above it. */
function tablesOf(markdown: string): Table[] {
  const tables: Table[] = [];
  let section = "";
  let subsection = "";
  let current: Table | null = null;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("## ")) [section, subsection] = [line.slice(3).trim(), ""];
    if (line.startsWith("### ")) subsection = line.slice(4).trim();
    if (!line.startsWith("|")) {
      current = null;
      continue;
    }
    if (!current) {
      current = { section, subsection, header: cells(line), rows: [] };
      tables.push(current);
    } else if (!/^\|[\s|:-]+\|$/.test(line.trim())) current.rows.push(cells(line));
  }
  return tables;
}

/** The lines of one `##` section of a document. */
function sectionLines(markdown: string, heading: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) return [];
  const end = lines.findIndex((line, index) => index > start && line.startsWith("## "));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The lines of one `###` subsection of a document. */
function subsectionLines(markdown: string, heading: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(`### ${heading}`);
  if (start < 0) return [];
  const end = lines.findIndex((line, index) => index > start && /^#{2,3} /.test(line));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The text inside each pair of backticks. */
const codeSpans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

// ---- docs/conformance.md ----

interface Row {
  /** The Rule cell up to its first ": ", the rule's key as the contract writes it. */
  key: string;
  rule: string;
  implementedIn: string[];
  provedBy: string[];
  noneYet: boolean;
}

const conformance = read(CONFORMANCE);
const conformanceTables = tablesOf(conformance);

const rows: Row[] = conformanceTables
  .filter((table) => table.header.join("|") === RULE_HEADER.join("|"))
  .flatMap((table) =>
    table.rows.map(([rule = "", implemented = "", proved = ""]) => ({
      key: rule.includes(": ") ? rule.slice(0, rule.indexOf(": ")) : rule,
      rule,
      implementedIn: codeSpans(implemented),
      provedBy: codeSpans(proved),
      noneYet: proved === NONE_YET,
    })),
  );

/** The keys a row names: each variable of a row keyed by several (`SVC_A`, `SVC_B`), else its key. */
const namesOf = (row: Row) => (/^`[^`]+`(, `[^`]+`)*$/.test(row.key) ? codeSpans(row.key).map((name) => `\`${name}\``) : [row.key]);

/**
 * What a test of a row keyed by a variable or a route must contain: the variable, or the route's path
 * up to its first parameter or wildcard (`/v1/oidc/bindings/{binding}`: `/v1/oidc/bindings/`).
 */
function evidenceOf(row: Row): string[] {
  const subjects = /^`[^`]+`(, `[^`]+`)*$/.test(row.key) ? codeSpans(row.key) : codeSpans(row.key.match(/^`[^`]+`/)?.[0] ?? "");
  return subjects.flatMap((subject) => {
    if (/^SVC_\w+$/.test(subject)) return [subject];
    const route = subject.match(/^(?:(?:GET|POST|PUT|PATCH|DELETE) )?(\/\S*)$/);
    return route ? [route[1]!.split(/[{*]/)[0]!] : [];
  });
}

/** The keys listed under "Rules without a test of their own", each bullet `- <key>: why`. */
const listedWithoutTest = sectionLines(conformance, WITHOUT_TEST)
  .filter((line) => line.startsWith("- "))
  .map((line) => line.slice(2, line.includes(": ") ? line.indexOf(": ") : undefined));

// ---- docs/control-plane.md ----

/** Every key of the contract that needs a row: routes, variables, permissions, limits, steps, rules, statuses, transitions, lifetimes. */
function contractKeys(): string[] {
  const contract = read("docs/control-plane.md");
  const keys: string[] = [];
  for (const { section, subsection, header, rows: contractRows } of tablesOf(contract)) {
    const first = header[0];
    for (const row of contractRows) {
      const cell = row[0]!;
      if (section === "Endpoints" && first === "Method") keys.push(`\`${cell} ${row[1]!.replaceAll("`", "")}\``);
      else if (section === "Endpoints" && first === "Method, path") keys.push(cell);
      else if (section === "Endpoints" && first === "Status") keys.push(`\`${subsection}\` ${cell}`);
      else if (subsection === "Configuration" && first === "Variable") keys.push(...codeSpans(cell).map((name) => `\`${name}\``));
      else if (first === "Permission") keys.push(cell);
      else if (section === "Limits" && first === "Limit") keys.push(cell);
      else if (subsection === "Organization deletion" && first === "Step") keys.push(cell);
      else if (subsection === "Status meanings" && first === "Status") keys.push(cell);
      else if (section === "States and transitions" && first === "From") keys.push(`${cell} → ${row[3]} on ${row[1]}`);
    }
  }
  for (const line of sectionLines(contract, "Authentication")) {
    const rule = line.match(/^(\d+)\. /);
    if (rule) keys.push(`Authentication rule ${rule[1]}`);
  }
  for (const line of subsectionLines(contract, "Environment")) {
    const rule = line.match(/^(\d+)\. /);
    if (rule) keys.push(`Environment rule ${rule[1]}`);
  }
  // The lifetimes stated in prose, one rule each.
  for (const heading of ["Session", "Invitation"]) if (subsectionLines(contract, heading).some((line) => line.trim())) keys.push(heading);
  return keys;
}

// ---- worker/rpc/router.ts ----

/** Each top-level key of `appRouter` and the folder its router is imported from. */
function routerNamespaces(): Record<string, string> {
  const source = read("worker/rpc/router.ts");
  const folderOf = new Map<string, string>();
  for (const [, names, folder] of source.matchAll(/import \{([^}]+)\} from "\.\.\/([\w-]+)\//g)) {
    for (const name of names!.split(",")) folderOf.set(name.trim(), `worker/${folder}/`);
  }
  const declaration = source.slice(source.indexOf("export const appRouter = router({"));
  const namespaces: Record<string, string> = {};
  for (const [, key, value] of declaration.matchAll(/^ {2}(\w+): (.+),$/gm)) {
    // `workloads: router({ ...a, ...b })` joins several routers, all from one folder.
    const routers = value!.startsWith("router(") ? [...value!.matchAll(/\.\.\.(\w+)/g)].map((match) => match[1]!) : [value!];
    const folders = [...new Set(routers.map((name) => folderOf.get(name) ?? `no import of ${name}`))];
    namespaces[key!] = folders.join(" and ");
  }
  return namespaces;
}

// ---- the rules ----

describe("docs/conformance.md", () => {
  it("reads its tables: every one is a Rule | Implemented in | Proved by table, but the namespaces'", () => {
    expect(rows.length).toBeGreaterThan(100);
    const others = conformanceTables.filter((table) => ![RULE_HEADER, NAMESPACE_HEADER].some((header) => header.join("|") === table.header.join("|")));
    expect(others.map((table) => `${table.subsection || table.section}: ${table.header.join(" | ")}`)).toEqual([]);
  });

  it("writes every Rule cell as `<key>: <a few words>`", () => {
    expect(rows.filter((row) => !row.rule.includes(": ")).map((row) => row.rule)).toEqual([]);
  });

  it("names at least one implementing file and one test for every row, or `none yet` for a rule listed without a test", () => {
    const unimplemented = rows.filter((row) => row.implementedIn.length === 0).map((row) => row.key);
    const untested = rows.filter((row) => row.provedBy.length === 0 && !row.noneYet).map((row) => row.key);
    const unlisted = rows.filter((row) => row.noneYet && !listedWithoutTest.includes(row.key)).map((row) => row.key);
    expect({ unimplemented, untested, unlisted }).toEqual({ unimplemented: [], untested: [], unlisted: [] });
  });

  it(`lists under "${WITHOUT_TEST}" only rows marked \`${NONE_YET}\``, () => {
    const noneYet = new Set(rows.filter((row) => row.noneYet).map((row) => row.key));
    expect(listedWithoutTest.filter((key) => !noneYet.has(key))).toEqual([]);
  });

  it("names only files that exist: code outside test/, tests that are test files", () => {
    const missing = rows.flatMap((row) =>
      [...row.implementedIn, ...row.provedBy].filter((path) => !existsSync(ROOT + path)).map((path) => `${row.key}: ${path}`),
    );
    const notCode = rows.flatMap((row) => row.implementedIn.filter((path) => path.startsWith("test/")).map((path) => `${row.key}: ${path}`));
    const notTests = rows.flatMap((row) => row.provedBy.filter((path) => !TEST_FILE.test(path)).map((path) => `${row.key}: ${path}`));
    expect({ missing, notCode, notTests }).toEqual({ missing: [], notCode: [], notTests: [] });
  });

  it("has a row for every rule of docs/control-plane.md", () => {
    const required = contractKeys();
    // The contract's sections each hold their kind of key; too few found means its layout changed.
    expect(required.length).toBeGreaterThan(180);
    const named = new Set(rows.flatMap(namesOf));
    expect(required.filter((key) => !named.has(key))).toEqual([]);
  });

  it("proves a row keyed by a variable or a route with a test that names it", () => {
    const unnamed = rows
      .filter((row) => !row.noneYet)
      .flatMap((row) =>
        evidenceOf(row)
          .filter((needle) => !row.provedBy.some((path) => existsSync(ROOT + path) && read(path).includes(needle)))
          .map((needle) => `${row.key}: no listed test contains ${needle}`),
      );
    expect(unnamed).toEqual([]);
  });

  it("gives each /rpc namespace of worker/rpc/router.ts the folder its router is imported from", () => {
    const table = conformanceTables.find((candidate) => candidate.header.join("|") === NAMESPACE_HEADER.join("|"));
    const documented = Object.fromEntries(
      (table?.rows ?? []).map(([namespace = "", folder = ""]) => [namespace.replaceAll("`", ""), folder.replaceAll("`", "")]),
    );
    const declared = routerNamespaces();
    expect(Object.keys(declared).length).toBeGreaterThan(20);
    expect(documented).toEqual(declared);
  });
});
