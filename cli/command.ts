export type CommandEnv = Record<string, string | undefined>;

/** Runs with its arguments and environment; resolves to the exit status. */
export type Command = (args: string[], env: CommandEnv) => Promise<number>;

/** A control plane, local Worker or database that cannot be reached: EX_UNAVAILABLE. The service's catalog says nothing about it. */
export const UNREACHABLE_EXIT = 69;

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export function requireVariable(env: CommandEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set; this command needs it.`);
  return value;
}
