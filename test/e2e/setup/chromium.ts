// The headless Chromium the end-to-end tests drive: Debian's chromium-headless-shell (PLATFORM-NOTES
// "A browser for tests").
import { debianProgram } from "../../setup/debian";

export const CHROMIUM = "/usr/bin/chromium-headless-shell";

export const findChromium = (): string => debianProgram(CHROMIUM, "chromium-headless-shell", "The end-to-end tests");
