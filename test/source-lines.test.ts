import { utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fileLines } from "../src/files/lines.js";
import { workdirWith } from "./helpers.js";

describe("fileLines: the lines behind snippets and debug stops", () => {
  it("keeps as many files as an answer shows (50 references in 50 files), and reads a file again when it changes", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`m${i}.ts`] = `export const a${i} = 1;\n`;
    const dir = await workdirWith(files);
    const paths = Object.keys(files).map((f) => path.join(dir, f));
    // A whole second, so that putting it back below restores it exactly.
    const SECOND = 1_700_000_000;
    for (const p of paths) utimesSync(p, SECOND, SECOND);
    for (const p of paths) expect(fileLines(p)?.[0]).toMatch(/^export const a\d+ = 1;$/);
    // Same size, modification time put back: only a kept file still answers the old text. With room for fewer
    // files than an answer shows, the first ones were dropped by the time the last were read.
    for (const p of paths) {
      writeFileSync(p, (fileLines(p)?.[0] ?? "").replace("= 1", "= 2").concat("\n"));
      utimesSync(p, SECOND, SECOND);
    }
    for (const p of paths) expect(fileLines(p)?.[0]).toMatch(/= 1;$/);
    // A change of size (or of modification time) is read.
    writeFileSync(paths[0]!, "export const changed = 10;\n");
    expect(fileLines(paths[0]!)).toEqual(["export const changed = 10;", ""]);
  });

  it("a file that cannot be read is undefined, and is read again once it can be", async () => {
    const dir = await workdirWith({ "x.py": "x = 1\n" });
    const p = path.join(dir, "x.py");
    expect(fileLines(path.join(dir, "missing.py"))).toBeUndefined();
    expect(fileLines(p)).toEqual(["x = 1", ""]);
    writeFileSync(p, "x = 22\n");
    expect(fileLines(p)).toEqual(["x = 22", ""]);
  });
});
