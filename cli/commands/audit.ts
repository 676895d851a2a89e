import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { verifyExportFile } from "../../worker/audit/offline-verify";
import { UsageError, type Command } from "../command";

/** `audit verify <file> [--head <hash>]`: checks an exported audit log offline; exit 0 intact, 1 not. */
export const audit: Command = async (args) => {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { head: { type: "string" } } });
  const [action, file] = positionals;
  if (action !== "verify" || !file) throw new UsageError("audit: expected `audit verify <file> [--head <hash>]`.");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    console.error(`Cannot read ${file}.`);
    return 1;
  }
  const verdict = await verifyExportFile(text, values.head);
  if (verdict.intact) {
    console.log(`intact: ${verdict.entries} entries, head seq ${verdict.head.seq} hash ${verdict.head.hash ?? "(empty log)"}`);
    return 0;
  }
  console.error(
    `broken at line ${verdict.line}${verdict.seq === null ? "" : ` (seq ${verdict.seq})`}: ${verdict.reason}; ${verdict.entries} entries before it verify.`,
  );
  return 1;
};
