import { utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fileLines } from "../src/files/lines.js";
import { workdirWith } from "./helpers.js";

/** Makes every file written so far look changed seconds ago, past the tick within which a change can hide. */
const later = () => vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 3000 });

describe("fileLines: the lines behind snippets and debug stops", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("keeps as many files as an answer shows (50 references in 50 files), without reading them again", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`m${i}.ts`] = `export const a${i} = 1;\n`;
    const dir = await workdirWith(files);
    const paths = Object.keys(files).map((f) => path.join(dir, f));
    later();
    const first = paths.map((p) => fileLines(p));
    for (const lines of first) expect(lines?.[0]).toMatch(/^export const a\d+ = 1;$/);
    // The very lines kept, not a new read. With room for fewer files than an answer shows, the first ones were
    // dropped by the time the last were read.
    for (const [i, p] of paths.entries()) expect(fileLines(p)).toBe(first[i]);
  });

  it("a change is read even with the file's size and modification time put back", async () => {
    const dir = await workdirWith({ "m.ts": "export const a = 1;\n" });
    const p = path.join(dir, "m.ts");
    const SECOND = 1_700_000_000;
    utimesSync(p, SECOND, SECOND);
    later();
    expect(fileLines(p)?.[0]).toBe("export const a = 1;");
    writeFileSync(p, "export const a = 2;\n");
    utimesSync(p, SECOND, SECOND);
    expect(fileLines(p)?.[0]).toBe("export const a = 2;");
  });

  it("a file changed within the last tick is answered from its bytes on every call until it has settled; equal bytes keep the lines already split", async () => {
    const dir = await workdirWith({ "x.py": "x = 1\n" });
    const p = path.join(dir, "x.py");
    writeFileSync(p, "x = 2\n");
    const fresh = fileLines(p);
    expect(fresh).toEqual(["x = 2", ""]);
    // A second change in the same tick could leave the same stat: so the bytes are read again, and only equal
    // bytes keep what was decoded.
    expect(fileLines(p)).toBe(fresh);
    writeFileSync(p, "x = 3\n");
    expect(fileLines(p)).toEqual(["x = 3", ""]);
    later();
    const settled = fileLines(p);
    expect(fileLines(p)).toBe(settled);
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
