// Where `svc login` keeps CLI tokens: $XDG_CONFIG_HOME/svc/credentials.json (~/.config/svc without
// it), one entry per control plane, the directory 0700 and the file 0600, written whole and renamed
// into place so a reader never sees half of it.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { CommandEnv } from "../command";

export interface StoredToken {
  token: string;
  scopes: string[];
  obtainedAt: string;
}

interface CredentialsFile {
  version: 1;
  controlPlanes: Record<string, StoredToken>;
}

export const credentialsPath = (env: CommandEnv) => join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config"), "svc", "credentials.json");

/** One control plane, one entry: `http://host:8080/` and `http://host:8080` are the same. */
export const controlPlaneKey = (url: string) => url.replace(/\/+$/, "");

function readAll(path: string): CredentialsFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, controlPlanes: {} };
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<CredentialsFile>;
  return { version: 1, controlPlanes: parsed.controlPlanes ?? {} };
}

function writeAll(path: string, file: CredentialsFile): void {
  const dir = join(path, "..");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, path);
}

export function readToken(env: CommandEnv, url: string): StoredToken | null {
  return readAll(credentialsPath(env)).controlPlanes[controlPlaneKey(url)] ?? null;
}

export function storeToken(env: CommandEnv, url: string, token: StoredToken): void {
  const path = credentialsPath(env);
  const file = readAll(path);
  file.controlPlanes[controlPlaneKey(url)] = token;
  writeAll(path, file);
}

/** Forgets the control plane's entry; whether there was one. */
export function forgetToken(env: CommandEnv, url: string): boolean {
  const path = credentialsPath(env);
  const file = readAll(path);
  if (!(controlPlaneKey(url) in file.controlPlanes)) return false;
  delete file.controlPlanes[controlPlaneKey(url)];
  writeAll(path, file);
  return true;
}
