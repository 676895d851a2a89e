// Verifying an exported audit file with nothing but the file (and, for a truncated tail, the head the
// console shows): names the first entry that does not continue the chain.
import { brokenLink, type ExportedEntry, type ExportHead } from "./entry";

export type FileVerdict =
  | { intact: true; entries: number; head: { seq: number; hash: string | null } }
  | { intact: false; entries: number; line: number; seq: number | null; reason: string };

export async function verifyExportFile(text: string, expectedHead?: string): Promise<FileVerdict> {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  let previous: string | null = null;
  let lastSeq = 0;
  for (const [index, line] of lines.entries()) {
    const lineNumber = index + 1;
    let parsed: Partial<ExportedEntry & ExportHead>;
    try {
      parsed = JSON.parse(line) as Partial<ExportedEntry & ExportHead>;
    } catch {
      return { intact: false, entries: index, line: lineNumber, seq: null, reason: "the line is not JSON" };
    }
    // The service's own last line when the export failed on its way (worker/audit/export.ts).
    if ((parsed as { error?: unknown }).error !== undefined && index === lines.length - 1) {
      return { intact: false, entries: index, line: lineNumber, seq: lastSeq || null, reason: "the export failed before its end; download it again" };
    }
    if (parsed.head) {
      if (index !== lines.length - 1) return { intact: false, entries: index, line: lineNumber, seq: null, reason: "the head is not the last line" };
      if (parsed.head.seq !== lastSeq || parsed.head.hash !== previous) {
        return {
          intact: false,
          entries: index,
          line: lineNumber,
          seq: parsed.head.seq,
          reason: "the head does not match the last entry (entries were removed from the end)",
        };
      }
      if (expectedHead !== undefined && parsed.head.hash !== expectedHead) {
        return { intact: false, entries: index, line: lineNumber, seq: parsed.head.seq, reason: "the file's head is not the head you expected" };
      }
      return { intact: true, entries: index, head: { seq: parsed.head.seq, hash: parsed.head.hash } };
    }
    const entry = parsed as ExportedEntry;
    const reason = typeof entry.seq === "number" ? await brokenLink(previous, entry) : "the line is not an audit entry";
    if (reason) return { intact: false, entries: index, line: lineNumber, seq: typeof entry.seq === "number" ? entry.seq : null, reason };
    previous = entry.hash;
    lastSeq = entry.seq;
  }
  return { intact: false, entries: lines.length, line: lines.length, seq: lastSeq || null, reason: "the file has no head line: it was cut short" };
}
