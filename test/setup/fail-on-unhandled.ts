// Errors raised inside workerd outside a test are printed but leave the run green; make them fail it.
import type { Reporter, TestRunEndReason } from "vitest/node";
import type { SerializedError } from "@vitest/utils";

export default class FailOnUnhandled implements Reporter {
  onTestRunEnd(_modules: unknown, errors: ReadonlyArray<SerializedError>, _reason: TestRunEndReason) {
    if (errors.length > 0) process.exitCode = 1;
  }
}
