// Reads one top-level entry of a workflow file: the part of YAML 1.2 that workflows' triggers are
// written in (block mappings and sequences by indentation, flow collections, plain and quoted
// scalars, comments, block scalars). A general YAML library was a tenth of the Worker's bytes for
// this one look-up (bench/startup.ts). What it does not read (anchors, aliases, tags, complex keys,
// tabs as indentation, several documents) throws a YamlUnread naming the line; the other top-level
// entries (the jobs and their scripts) are not parsed at all.

export class YamlUnread extends Error {
  override readonly name = "YamlUnread";
  constructor(reason: string, line: number) {
    super(`line ${line}: ${reason}`);
  }
}

interface Line {
  number: number;
  indent: number;
  /** Without its indentation and its comment. */
  text: string;
  /** Without its indentation, as written (a block scalar's content keeps its `#`). */
  raw: string;
}

/** Whether the quote at `at` opens a quoted scalar: only where a value starts (an apostrophe inside a plain scalar does not). */
const opensQuote = (text: string, at: number) => (text[at] === '"' || text[at] === "'") && (at === 0 || /[\s[{,:]/.test(text[at - 1]!));

/** Where a comment starts: a `#` at the start or after white space, outside quotes. */
function commentAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (opensQuote(text, i)) {
      const end = quotedEndOrNull(text, i);
      if (end === null) return text.length;
      i = end - 1;
    } else if (text[i] === "#" && (i === 0 || /\s/.test(text[i - 1]!))) return i;
  }
  return text.length;
}

/** Where the quoted scalar at `at` ends, or null when it is not closed on this text. */
function quotedEndOrNull(text: string, at: number): number | null {
  try {
    return quoted(text, at, 0).end;
  } catch {
    return null;
  }
}

function linesOf(source: string): Line[] {
  const lines: Line[] = [];
  let documents = 0;
  source
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .forEach((line, index) => {
      const number = index + 1;
      const indentation = /^[ \t]*/.exec(line)![0];
      const raw = line.slice(indentation.length);
      const text = raw.slice(0, commentAt(raw)).trimEnd();
      if (indentation === "" && /^---(\s|$)/.test(raw)) {
        if (++documents > 1 || lines.length > 0) throw new YamlUnread("a file of several documents", number);
        return;
      }
      if (indentation.includes("\t") && text !== "") throw new YamlUnread("a tab in the indentation", number);
      lines.push({ number, indent: indentation.length, text, raw: raw.trimEnd() });
    });
  return lines;
}

const CORE_SCALARS: Record<string, unknown> = { "": null, "~": null, null: null, Null: null, NULL: null, true: true, True: true, TRUE: true, false: false, False: false, FALSE: false };

/** A plain scalar as the core schema resolves it. */
function plain(text: string, line: number): unknown {
  if (/^[&*!]/.test(text)) throw new YamlUnread("an anchor, alias or tag", line);
  if (text in CORE_SCALARS) return CORE_SCALARS[text];
  if (/^(0x[0-9a-fA-F]+|0o[0-7]+|[-+]?(\.\d+|\d+(\.\d*)?)([eE][-+]?\d+)?)$/.test(text)) return Number(text);
  return text;
}

const ESCAPES: Record<string, string> = { "0": "\0", a: "\x07", b: "\b", t: "\t", "\t": "\t", n: "\n", v: "\v", f: "\f", r: "\r", e: "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", N: "\x85", _: "\xa0" };

/** A quoted scalar starting at `at`: its value and where it ends. */
function quoted(text: string, at: number, line: number): { value: string; end: number } {
  const quote = text[at]!;
  let value = "";
  for (let i = at + 1; i < text.length; i++) {
    const char = text[i]!;
    if (quote === "'" && char === "'") {
      if (text[i + 1] !== "'") return { value, end: i + 1 };
      value += "'";
      i++;
    } else if (quote === '"' && char === '"') return { value, end: i + 1 };
    else if (quote === '"' && char === "\\") {
      const escape = text[++i] ?? "";
      const hex = { x: 2, u: 4, U: 8 }[escape];
      if (hex) {
        value += String.fromCodePoint(parseInt(text.slice(i + 1, i + 1 + hex), 16));
        i += hex;
      } else if (escape in ESCAPES) value += ESCAPES[escape];
      else throw new YamlUnread(`an unknown escape \\${escape}`, line);
    } else value += char;
  }
  throw new YamlUnread("a quoted scalar that is not closed", line);
}

/** A flow value ([...], {...}, quoted or plain) in `text` from `at`: its value and where it ends. */
function flow(text: string, at: number, line: number, inFlow: boolean): { value: unknown; end: number } {
  const skip = (i: number) => {
    while (text[i] === " ") i++;
    return i;
  };
  let i = skip(at);
  const open = text[i];
  if (open === '"' || open === "'") return quoted(text, i, line);
  if (open === "[" || open === "{") {
    const close = open === "[" ? "]" : "}";
    const items: unknown[] = [];
    const entries: Record<string, unknown> = {};
    i = skip(i + 1);
    while (text[i] !== close) {
      if (i >= text.length) throw new YamlUnread(`a flow collection without its ${close}`, line);
      const item = flow(text, i, line, true);
      i = skip(item.end);
      if (open === "{") {
        const key = String(item.value ?? "");
        if (key in entries) throw new YamlUnread(`the key ${key} twice`, line);
        let value: unknown = null;
        if (text[i] === ":") {
          const parsed = flow(text, i + 1, line, true);
          value = parsed.value;
          i = skip(parsed.end);
        }
        entries[key] = value;
      } else items.push(item.value);
      if (text[i] === ",") i = skip(i + 1);
      else if (text[i] !== close) throw new YamlUnread(`a flow collection without its ${close}`, line);
    }
    return { value: open === "[" ? items : entries, end: i + 1 };
  }
  // A plain scalar ends at the line's end, or in a flow collection at `,`, `]`, `}` or `: `.
  let end = i;
  while (end < text.length && !(inFlow && (/[,\]}]/.test(text[end]!) || (text[end] === ":" && /[\s,\]}]|^$/.test(text[end + 1] ?? ""))))) end++;
  return { value: plain(text.slice(i, end).trim(), line), end };
}

/** Parses the block structure of `lines` by indentation. */
class BlockReader {
  private at = 0;
  constructor(private readonly lines: Line[]) {}

  private next(): Line | undefined {
    while (this.lines[this.at]?.text === "") this.at++;
    return this.lines[this.at];
  }

  /** The node whose lines are indented more than `parent`, or null when there is none. */
  /** Throws when lines are left that the structure read did not take. */
  end(): void {
    const left = this.next();
    if (left) throw new YamlUnread("a line that does not fit the indentation around it", left.number);
  }

  node(parent: number): unknown {
    const line = this.next();
    if (!line || line.indent <= parent) return null;
    return /^-(\s|$)/.test(line.text) ? this.sequence(line.indent) : this.mapping(line.indent);
  }

  private sequence(indent: number): unknown[] {
    const items: unknown[] = [];
    for (let line = this.next(); line && line.indent === indent && /^-(\s|$)/.test(line.text); line = this.next()) {
      const rest = line.text.slice(1).trimStart();
      if (rest === "") {
        this.at++;
        items.push(this.node(indent));
      } else if (/^-(\s|$)/.test(rest) || splitKey(rest, line.number)) {
        // `- key: value` opens a mapping whose entries align with `key`; `- - item` a sequence.
        const column = indent + line.text.length - rest.length;
        this.lines[this.at] = { ...line, indent: column, text: rest, raw: rest };
        items.push(this.node(column - 1));
      } else items.push(this.inline(line, rest, indent));
    }
    return items;
  }

  mapping(indent: number): Record<string, unknown> {
    const entries: Record<string, unknown> = {};
    for (let line = this.next(); line && line.indent === indent && !/^-(\s|$)/.test(line.text); line = this.next()) {
      const entry = splitKey(line.text, line.number);
      if (!entry) throw new YamlUnread("a line that is not `key: value`", line.number);
      if (entry.key in entries) throw new YamlUnread(`the key ${entry.key} twice`, line.number);
      if (entry.rest === "") {
        this.at++;
        const below = this.next();
        // A sequence may sit at its key's own indentation.
        entries[entry.key] = below && below.indent === indent && /^-(\s|$)/.test(below.text) ? this.sequence(indent) : this.node(indent);
      } else entries[entry.key] = this.inline(line, entry.rest, indent);
    }
    const stray = this.next();
    if (stray && stray.indent > indent) throw new YamlUnread("a line indented more than the entries around it", stray.number);
    return entries;
  }

  /** A value written after `key:` or `- `: a block scalar, a flow value (perhaps over several lines) or a plain scalar continued on more indented lines. */
  private inline(line: Line, rest: string, indent: number): unknown {
    this.at++;
    if (/^[|>][-+1-9]*$/.test(rest)) {
      const content: Line[] = [];
      while (this.lines[this.at] && (this.lines[this.at]!.indent > indent || this.lines[this.at]!.raw === "")) content.push(this.lines[this.at++]!);
      return blockScalar(rest, content);
    }
    let text = rest;
    if (/^[[{]/.test(rest)) {
      while (unclosed(text) && this.next() && this.next()!.indent > indent) text += ` ${this.lines[this.at++]!.text}`;
      const parsed = flow(text, 0, line.number, false);
      if (text.slice(parsed.end).trim() !== "") throw new YamlUnread("text after a flow collection", line.number);
      return parsed.value;
    }
    if (/^["']/.test(rest)) {
      const parsed = quoted(rest, 0, line.number);
      if (rest.slice(parsed.end).trim() !== "") throw new YamlUnread("text after a quoted scalar", line.number);
      return parsed.value;
    }
    for (let more = this.next(); more && more.indent > indent && !splitKey(more.text, more.number); more = this.next()) {
      text += ` ${more.text}`;
      this.at++;
    }
    return flow(text, 0, line.number, false).value;
  }
}

/** A block scalar's text (`|` keeps line breaks, `>` folds them) under its chomping indicator. */
function blockScalar(header: string, content: Line[]): string {
  const margin = Math.min(...content.filter((line) => line.raw !== "").map((line) => line.indent));
  const rows = content.map((line) => (line.raw === "" ? "" : " ".repeat(line.indent - margin) + line.raw));
  let trailing = 0;
  while (rows.length > 0 && rows[rows.length - 1] === "") {
    rows.pop();
    trailing++;
  }
  let text = "";
  if (header[0] === "|") text = rows.join("\n");
  else {
    // Folding: a break between two lines at the margin becomes a space; blank lines stay breaks; more indented lines keep theirs.
    let blanks = 0;
    rows.forEach((row, index) => {
      if (row === "") return void blanks++;
      const previous = rows.slice(0, index).findLast((each) => each !== "");
      if (previous !== undefined) text += previous.startsWith(" ") || row.startsWith(" ") ? "\n".repeat(blanks + 1) : blanks ? "\n".repeat(blanks) : " ";
      else text += "\n".repeat(blanks);
      text += row;
      blanks = 0;
    });
  }
  if (rows.length === 0) return "";
  if (header.includes("-")) return text;
  return text + "\n".repeat(header.includes("+") ? trailing + 1 : 1);
}

/** Whether a flow collection's brackets are still open at the end of `text` (quotes respected). */
function unclosed(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (opensQuote(text, i)) {
      const end = quotedEndOrNull(text, i);
      if (end === null) return true;
      i = end - 1;
    } else if (char === "[" || char === "{") depth++;
    else if (char === "]" || char === "}") depth--;
  }
  return depth > 0;
}

/** `key: rest` split at the first `:` followed by a space or the line's end; null when the line has none. */
function splitKey(text: string, line: number): { key: string; rest: string } | null {
  if (/^[?&*!]/.test(text)) throw new YamlUnread("a complex key, anchor, alias or tag", line);
  let key: string;
  let after: number;
  if (text[0] === '"' || text[0] === "'") {
    const parsed = quoted(text, 0, line);
    const colon = /^\s*:(\s|$)/.exec(text.slice(parsed.end));
    if (!colon) return null;
    key = parsed.value;
    after = parsed.end + colon[0].length;
  } else {
    const colon = /:(\s|$)/.exec(text);
    if (!colon || /^[[{]/.test(text)) return null;
    key = String(plain(text.slice(0, colon.index).trim(), line) ?? "");
    after = colon.index + colon[0].length;
  }
  return { key, rest: text.slice(after).trim() };
}

/**
 * The value of the top-level `key` of a YAML document that is a mapping: undefined when the
 * document has no such key, null when the document is not a mapping at all.
 */
export function topLevelEntry(source: string, key: string): { value: unknown } | null | undefined {
  const lines = linesOf(source);
  const first = lines.find((line) => line.text !== "");
  if (!first) return null;
  if (first.indent !== 0) throw new YamlUnread("a document indented from its first line", first.number);
  if (first.text.startsWith("{")) {
    // A document written as one flow mapping.
    const document = flow(lines.map((line) => line.text).join(" "), 0, first.number, false).value as Record<string, unknown>;
    return key in document ? { value: document[key] } : undefined;
  }
  if (/^-(\s|$)/.test(first.text) || !splitKey(first.text, first.number)) return null;
  let found: { value: unknown } | undefined;
  lines.forEach((line, index) => {
    if (line.indent !== 0 || line.text === "" || /^-(\s|$)/.test(line.text)) return;
    // Other entries are not read: a line of theirs this reader would refuse is not a reason to refuse the file.
    let entry: ReturnType<typeof splitKey> = null;
    try {
      entry = splitKey(line.text, line.number);
    } catch {
      return;
    }
    if (entry?.key !== key) return;
    if (found) throw new YamlUnread(`the key ${key} twice`, line.number);
    // The entry's own lines: up to the next line that starts another top-level key.
    let end = index + 1;
    while (end < lines.length && (lines[end]!.indent > 0 || lines[end]!.text === "" || /^-(\s|$)/.test(lines[end]!.text))) end++;
    const reader = new BlockReader(lines.slice(index, end));
    found = { value: reader.mapping(0)[key] };
    reader.end();
  });
  return found;
}
