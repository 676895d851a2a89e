// A state, outcome or verdict as every page draws it: its word, coloured and marked by its tone (status.ts).
import { statusOf } from "./status";

export function Status({ value, testId }: { value: string; testId?: string }) {
  const { label, tone } = statusOf(value);
  return (
    <span class={`status status-${tone}`} data-status={value} {...(testId ? { "data-testid": testId } : {})}>
      {label}
    </span>
  );
}
