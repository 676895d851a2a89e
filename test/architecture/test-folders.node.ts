// The tests mirror the code: every capability folder of worker/ has a folder of the same name in
// test/, so a rule's test is found where its code is (test/README.md).
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const folders = (path: string) =>
  readdirSync(ROOT + path, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

describe("the test tree", () => {
  it("has test/<capability>/ for every worker/<capability>/", () => {
    const tested = new Set(folders("test"));
    expect(folders("worker").filter((capability) => !tested.has(capability))).toEqual([]);
  });
});
