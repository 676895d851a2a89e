// Which lines of workerd's own output report an uncaught exception that should fail the run. workerd
// prints these itself (miniflare passes them to the process's output); vitest collects only some.

// `uncaught exception; source = ...` (from JavaScript), `uncaught exception; exception = ...` (from
// workerd's C++) and `Uncaught ...`, each at the start of its line: vitest's own lines (a test named
// for uncaught exceptions) begin otherwise.
const UNCAUGHT = /^\s*(uncaught exception\b|Uncaught\b)/i;

// Known and harmless: the local bridge drops a connection's socket after its pool ended, and workerd
// reports the loss (db/neon.ts installs the listeners that keep it from going further).
const BENIGN = [/Network connection lost\.?\s*$/, /disconnected: WebSocket peer disconnected\s*$/];

/** The lines of `text` that report an uncaught exception, known-harmless ones aside. */
export function uncaughtExceptions(text: string): string[] {
  return (
    text
      .split("\n")
      // Colours, as a terminal would show them, are not part of the message.
      .map((line) => line.replace(/\x1b\[[0-9;]*m/g, "").trimEnd())
      .filter((line) => UNCAUGHT.test(line) && !BENIGN.some((benign) => benign.test(line)))
  );
}
