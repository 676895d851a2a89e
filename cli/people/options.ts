// The people's commands' options: `--url` (else SVC_CONTROL_PLANE, else the local stack), `--json`,
// repeated `--scope` and `--all` (logout); whatever else is a positional argument, and an unknown
// option is a usage error.
import { UsageError, type CommandEnv } from "../command";

export const DEFAULT_CONTROL_PLANE = "http://127.0.0.1:8080";

export interface PeopleOptions {
  url: string;
  json: boolean;
  scopes: string[];
  /** `svc logout --all`: every CLI token of the person, not only this one. */
  all: boolean;
  positional: string[];
}

export function parseOptions(args: readonly string[], env: CommandEnv): PeopleOptions {
  const options: PeopleOptions = { url: env.SVC_CONTROL_PLANE || DEFAULT_CONTROL_PLANE, json: false, scopes: [], all: false, positional: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = () => {
      const given = inline ?? args[++i];
      if (given === undefined || given === "") throw new UsageError(`${name} needs a value.`);
      return given;
    };
    if (name === "--json") options.json = true;
    else if (name === "--all") options.all = true;
    else if (name === "--url") options.url = value();
    else if (name === "--scope")
      options.scopes.push(
        ...value()
          .split(/[\s,]+/)
          .filter(Boolean),
      );
    else if (name.startsWith("-") && name !== "-") throw new UsageError(`Unknown option ${name}.`);
    else options.positional.push(arg);
  }
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new UsageError(`The control plane address ${options.url} is not a URL.`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname))) {
    throw new UsageError(
      `The control plane address ${url.origin} is not https: the sign-in code and the token would cross the network in the clear. Use https://, or http:// only for this machine (localhost, 127.0.0.1, [::1]).`,
    );
  }
  return options;
}

/** This machine's own names and addresses, where plain http never leaves it (as RFC 8252 8.3 allows for loopback). */
const isLoopback = (host: string) => host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);

/** Exactly `count` positional arguments, named in the usage error otherwise. */
export function expectArguments(options: PeopleOptions, names: string[]): string[] {
  if (options.positional.length !== names.length) {
    throw new UsageError(names.length ? `Expected ${names.map((name) => `<${name}>`).join(" ")}.` : `Unexpected argument ${options.positional[0]}.`);
  }
  return options.positional;
}
