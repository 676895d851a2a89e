export type CommandEnv = Record<string, string | undefined>;

/** Runs with its arguments and environment; resolves to the exit status. */
export type Command = (args: string[], env: CommandEnv) => Promise<number>;

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export function requireVariable(env: CommandEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set; this command needs it.`);
  return value;
}
