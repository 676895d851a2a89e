// The headless Chromium the end-to-end tests drive: Debian's chromium-headless-shell, installed here
// through apt when running as root on Debian (PLATFORM-NOTES "A browser for tests"), otherwise a
// failure naming the one command to run.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

export const CHROMIUM = "/usr/bin/chromium-headless-shell";
const INSTALL = ["install", "-y", "--no-install-recommends", "chromium-headless-shell"];

export function findChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (process.getuid?.() === 0 && existsSync("/etc/debian_version")) {
    console.log("installing chromium-headless-shell for the end-to-end tests ...");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    execFileSync("apt-get", ["update"], { stdio: "inherit", env });
    execFileSync("apt-get", INSTALL, { stdio: "inherit", env });
    if (existsSync(CHROMIUM)) return CHROMIUM;
  }
  throw new Error(`The end-to-end tests need a headless Chromium at ${CHROMIUM}. Install it with:\n  sudo apt-get update && sudo apt-get ${INSTALL.join(" ")}`);
}
