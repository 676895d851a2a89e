// Errors raised inside workerd outside a test are printed but leave the run green; make them fail it.
// The messages workerd prints for what tests provoke on purpose are left out of the output
// (expectedRuntimeMessage), so a green run prints no stack trace.
// Two kinds: those vitest collected (its "unhandled errors"), and uncaught exceptions workerd prints
// itself (test/setup/workerd-uncaught.ts), which miniflare writes to this process's stdout (workerd
// logs them at info level) or stderr without vitest ever seeing them.
import type { Reporter, TestRunEndReason } from "vitest/node";
import type { SerializedError } from "@vitest/utils";
import { expectedRuntimeMessage, uncaughtExceptions } from "./workerd-uncaught";

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;

export default class FailOnUnhandled implements Reporter {
  private readonly seen: string[] = [];
  private ended = false;
  private print: Write = process.stdout.write.bind(process.stdout) as Write;

  onInit() {
    this.print = this.watch(process.stdout);
    this.watch(process.stderr);
  }

  onTestRunEnd(_modules: unknown, errors: ReadonlyArray<SerializedError>, _reason: TestRunEndReason) {
    this.ended = true;
    if (errors.length > 0) process.exitCode = 1;
    if (this.seen.length > 0) this.fail(`workerd printed ${this.seen.length} uncaught exception line(s) that vitest did not collect:\n${this.seen.join("\n")}`);
  }

  /** Passes everything written to `stream` on, looking at whole lines; returns the unwatched write. */
  private watch(stream: NodeJS.WriteStream): Write {
    const write = stream.write.bind(stream) as Write;
    let partial = "";
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
      if (partial === "" && expectedRuntimeMessage(text)) return true;
      const lines = (partial + text).split("\n");
      partial = lines.pop()!;
      const found = uncaughtExceptions(lines.join("\n"));
      // workerd also writes while it shuts down, after the summary: then fail at once.
      if (found.length > 0 && this.ended) this.fail(`workerd printed an uncaught exception after the tests ended:\n${found.join("\n")}`);
      else this.seen.push(...found);
      return write(chunk, ...rest);
    }) as typeof stream.write;
    return write;
  }

  private fail(message: string) {
    process.exitCode = 1;
    // Unwatched, or the message would be found again.
    this.print(`\nThe run fails: ${message}\n\n`);
  }
}
