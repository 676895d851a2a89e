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

// workerd's log messages that tests provoke on purpose, each printed whole by the pool in one write
// (its message, then the stack of workerd's own frames): a database at a refused port
// (test/support/http.ts UNREACHABLE_DATABASE) and its WebSocket's loss, and live channels the tests
// close. A green run leaves them out; anything else workerd says is printed and judged as before.
const EXPECTED_MESSAGES = [
  /^exception = kj\/async-io-unix\.c\+\+:\d+: disconnected: connect\(\): Connection refused$/,
  /^uncaught exception; source = Uncaught \(in promise\); stack = Error: Network connection lost\.$/,
  /^uncaught exception; exception = \S+: disconnected: jsg\.Error: Network connection lost\.$/,
  /^exception = workerd\/api\/web-socket\.c\+\+:\d+: disconnected: WebSocket peer disconnected$/,
];
const WORKERD_STACK = /^stack:( \S+workerd@[0-9a-f]+)+$/;

/** Whether one write to the output is one of workerd's expected messages, with or without its stack line. */
export function expectedRuntimeMessage(text: string): boolean {
  const [message = "", ...rest] = text
    .replace(/\x1b\[[0-9;]*m/g, "")
    .replace(/\n$/, "")
    .split("\n");
  return EXPECTED_MESSAGES.some((expected) => expected.test(message)) && rest.every((line) => WORKERD_STACK.test(line));
}
