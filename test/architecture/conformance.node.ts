// The contract (docs/control-plane.md) is kept rule by rule in docs/conformance.md: each rule's row names
// the files that enforce it and the test cases, by file and title, that prove it. Read from both
// documents and the sources (the test files parsed as code), so a rule added to the contract without a
// row, a row whose files moved, or a test case renamed or removed fails here at once.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseSync } from "rolldown/utils";
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

// ---- the test cases of a test file, read from its code ----

/** The test functions, and what may be chained onto them before the call that takes the title. */
const TEST_FUNCTIONS = new Set(["it", "test"]);
const MODIFIERS = new Set(["skip", "only", "todo", "fails", "concurrent", "sequential"]);
/** `it.each(table)("title", ...)`: these make the function the title is passed to. */
const FACTORIES = new Set(["each", "for", "skipIf", "runIf"]);

interface SyntaxNode {
  type: string;
  start: number;
  end: number;
  [field: string]: unknown;
}

const isNode = (value: unknown): value is SyntaxNode => typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";

const propertyName = (member: SyntaxNode) => {
  const property = member.property as SyntaxNode;
  return !member.computed && property.type === "Identifier" ? (property.name as string) : null;
};

/** Whether a call's callee is a test function: `it`, `test.skip`, `it.only.fails`, `it.each(table)`. */
function isTestFunction(callee: SyntaxNode): boolean {
  if (callee.type === "Identifier") return TEST_FUNCTIONS.has(callee.name as string);
  if (callee.type === "MemberExpression") return MODIFIERS.has(propertyName(callee) ?? "") && isTestFunction(callee.object as SyntaxNode);
  if (callee.type === "CallExpression") {
    const factory = callee.callee as SyntaxNode;
    return factory.type === "MemberExpression" && FACTORIES.has(propertyName(factory) ?? "") && isTestFunction(factory.object as SyntaxNode);
  }
  return false;
}

/**
 * The title of every test case of a test file, read by a TypeScript parser (oxc, through rolldown's
 * parseSync) from the first argument of each `it` or `test` call: a string's value; a template's text
 * without expressions; and for a title built by a template (a case per loop turn), the template's
 * source between its backticks, `${…}` and all. A title in a comment, in a string or as a `describe`
 * block's name is no test case's.
 */
function testTitles(file: string, text: string): Set<string> {
  const parsed = parseSync(file, text);
  if (parsed.errors.length > 0) throw new Error(`${file} does not parse: ${parsed.errors[0]!.message}`);
  const titles = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const child of value) visit(child);
    else if (typeof value === "object" && value !== null) {
      if (isNode(value) && value.type === "CallExpression" && isTestFunction(value.callee as SyntaxNode)) {
        const [title] = value.arguments as SyntaxNode[];
        if (title?.type === "Literal" && typeof title.value === "string") titles.add(title.value);
        else if (title?.type === "TemplateLiteral") {
          const quasis = title.quasis as Array<{ value: { cooked: string | null } }>;
          titles.add((title.expressions as unknown[]).length === 0 ? (quasis[0]!.value.cooked ?? "") : text.slice(title.start + 1, title.end - 1));
        }
      }
      for (const child of Object.values(value)) visit(child);
    }
  };
  visit(parsed.program);
  return titles;
}

const titlesByFile = new Map<string, Set<string>>();
/** The test titles of a file of the repository, read once. */
function titlesOf(path: string): Set<string> {
  let titles = titlesByFile.get(path);
  if (!titles) titlesByFile.set(path, (titles = testTitles(path, read(path))));
  return titles;
}

// ---- docs/conformance.md ----

/** A test case that proves a rule: its file and its title. */
interface Proof {
  file: string;
  title: string;
}

interface Row {
  /** The Rule cell up to its first ": ", the rule's key as the contract writes it. */
  key: string;
  rule: string;
  implementedIn: string[];
  /** The Proved by cell as written. */
  proved: string;
  provedBy: Proof[];
  noneYet: boolean;
}

/**
 * A title in a Proved by cell: in double quotes, where `\"`, `\|` and `\\` stand for a double quote, a
 * pipe (which would end the table cell) and a backslash; any other backslash stands for itself.
 */
const TITLE = String.raw`"(?:\\.|[^"\\])*"`;
/** One test file's proofs: the file in backticks, `: `, then its titles separated by `, `. */
const PROOFS_OF_FILE = `\`([^\`]+)\`: (${TITLE}(?:, ${TITLE})*)`;
/** A whole Proved by cell: the files' proofs separated by `; `. */
const PROVED_BY = new RegExp(`^${PROOFS_OF_FILE}(?:; ${PROOFS_OF_FILE})*$`);

const unescapeTitle = (quoted: string) => quoted.slice(1, -1).replace(/\\(["|\\])/g, "$1");

/** The (file, title) pairs a Proved by cell names; none when it does not follow the format. */
const proofsIn = (proved: string): Proof[] =>
  PROVED_BY.test(proved)
    ? [...proved.matchAll(new RegExp(PROOFS_OF_FILE, "g"))].flatMap(([, file, titles]) =>
        [...titles!.matchAll(new RegExp(TITLE, "g"))].map(([quoted]) => ({ file: file!, title: unescapeTitle(quoted) })),
      )
    : [];

const conformance = read(CONFORMANCE);
const conformanceTables = tablesOf(conformance);

const rows: Row[] = conformanceTables
  .filter((table) => table.header.join("|") === RULE_HEADER.join("|"))
  .flatMap((table) =>
    table.rows.map(([rule = "", implemented = "", proved = ""]) => ({
      key: rule.includes(": ") ? rule.slice(0, rule.indexOf(": ")) : rule,
      rule,
      implementedIn: codeSpans(implemented),
      proved,
      provedBy: proofsIn(proved),
      noneYet: proved === NONE_YET,
    })),
  );

/** The keys a row names: each variable of a row keyed by several (`SVC_A`, `SVC_B`), else its key. */
const namesOf = (row: Row) => (/^`[^`]+`(, `[^`]+`)*$/.test(row.key) ? codeSpans(row.key).map((name) => `\`${name}\``) : [row.key]);

/** The test files a row names. */
const testFilesOf = (row: Row) => [...new Set(row.provedBy.map((proof) => proof.file))];

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

  it("names at least one implementing file and one test case (its file and title) for every row, or `none yet` for a rule listed without a test", () => {
    const unimplemented = rows.filter((row) => row.implementedIn.length === 0).map((row) => row.key);
    // Empty, or not `file`: "title", "title"; `file`: "title" as the document's introduction says.
    const untested = rows.filter((row) => row.provedBy.length === 0 && !row.noneYet).map((row) => `${row.key}: ${row.proved || "(empty)"}`);
    const unlisted = rows.filter((row) => row.noneYet && !listedWithoutTest.includes(row.key)).map((row) => row.key);
    expect({ unimplemented, untested, unlisted }).toEqual({ unimplemented: [], untested: [], unlisted: [] });
  });

  it(`lists under "${WITHOUT_TEST}" only rows marked \`${NONE_YET}\``, () => {
    const noneYet = new Set(rows.filter((row) => row.noneYet).map((row) => row.key));
    expect(listedWithoutTest.filter((key) => !noneYet.has(key))).toEqual([]);
  });

  it("names only files that exist: code outside test/, tests that are test files", () => {
    const missing = rows.flatMap((row) =>
      [...row.implementedIn, ...testFilesOf(row)].filter((path) => !existsSync(ROOT + path)).map((path) => `${row.key}: ${path}`),
    );
    const notCode = rows.flatMap((row) => row.implementedIn.filter((path) => path.startsWith("test/")).map((path) => `${row.key}: ${path}`));
    const notTests = rows.flatMap((row) =>
      testFilesOf(row)
        .filter((path) => !TEST_FILE.test(path))
        .map((path) => `${row.key}: ${path}`),
    );
    expect({ missing, notCode, notTests }).toEqual({ missing: [], notCode: [], notTests: [] });
  });

  it("has a row for every rule of docs/control-plane.md", () => {
    const required = contractKeys();
    // The contract's sections each hold their kind of key; too few found means its layout changed.
    expect(required.length).toBeGreaterThan(180);
    const named = new Set(rows.flatMap(namesOf));
    expect(required.filter((key) => !named.has(key))).toEqual([]);
  });

  it("names only test cases that exist: each title is the title of a test case of its file, read from the file's code", () => {
    const readable = (file: string) => existsSync(ROOT + file) && TEST_FILE.test(file);
    const unknown = rows.flatMap((row) =>
      row.provedBy
        .filter(({ file, title }) => readable(file) && !titlesOf(file).has(title))
        .map(({ file, title }) => `${row.key}: ${file} has no test case "${title}"`),
    );
    expect(unknown).toEqual([]);
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

describe("testTitles", () => {
  it("reads a test case's title from the code: never from a comment, a string, a regular expression's call or a describe block", () => {
    const source = [
      'import { describe, expect, it, test } from "vitest";',
      '// it("a title in a line comment", () => {});',
      '/* test("a title in a block comment", () => {}); */',
      "const text = 'it(\"a title in a string\", () => {})';",
      'const template = `test("a title in a template", () => {})`;',
      'const matched = /it/.test("a title in a regular expression\'s call");',
      'describe("a describe block", () => {',
      '  it("a test case", () => expect(text).not.toBe(template));',
      "  it(",
      '    "a test case whose title is on a line of its own",',
      "    () => expect(matched).toBe(true),",
      "  );",
      "  test.skip(`a skipped test case`, () => {});",
      '  it.each([1, 2])("a test case per row: %s", () => {});',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's code, a template as it writes it
      "  for (const n of [1, 2]) it(`a test case built from ${n}`, () => {});",
      "});",
    ].join("\n");
    expect([...testTitles("sample.node.ts", source)]).toEqual([
      "a test case",
      "a test case whose title is on a line of its own",
      "a skipped test case",
      "a test case per row: %s",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the title as its template writes it
      "a test case built from ${n}",
    ]);
  });
});
