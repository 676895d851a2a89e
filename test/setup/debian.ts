// A program some tests need that the registries' Debian packages provide: found where the package
// puts it, installed through apt when running as root on Debian (as CI does), otherwise a failure
// naming the one command a person should run.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

export function debianProgram(path: string, pkg: string, purpose: string): string {
  if (existsSync(path)) return path;
  const install = ["install", "-y", "--no-install-recommends", pkg];
  if (process.getuid?.() === 0 && existsSync("/etc/debian_version")) {
    console.log(`installing ${pkg} for ${purpose} ...`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    execFileSync("apt-get", ["update"], { stdio: "inherit", env });
    execFileSync("apt-get", install, { stdio: "inherit", env });
    if (existsSync(path)) return path;
  }
  throw new Error(`${purpose} need ${path}. Install it with:\n  sudo apt-get update && sudo apt-get ${install.join(" ")}`);
}
