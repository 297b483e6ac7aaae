/**
 * A patch (a model's, perhaps a hostile one) never holds the host's thread. Hunks were sought by comparing at every
 * line in turn: 8,000 context lines against 80,000 lines that almost matched everywhere took 18 s, and a larger pair
 * hours; blank lines before a patch were shifted off one by one (200,000 of them: 1.6 s). Now a hunk is placed in
 * time linear in the file and the hunk, and what placing may cost is bounded with an answer that says what to do.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { call, textOf, track, treeOf, workdirWith } from "./helpers.js";

async function patchClient(files: Record<string, string>) {
  const workdir = await workdirWith(files);
  const run = track(await createRun({ workdir, approver: "always", lsp: false }));
  const client = await run.link({ surface: "full" });
  return { workdir, patch: (patch: string) => call(client, "apply_patch", { patch }) };
}

const envelope = (file: string, body: string[]) =>
  ["*** Begin Patch", `*** Update File: ${file}`, ...body, "*** End Patch"].join("\n");

describe("apply_patch holds under hostile patches", () => {
  it("a hunk of 100,000 context lines against 1,000,000 lines that match it nearly everywhere is refused at once, nothing changed", async () => {
    const files = { "x.txt": "x\n".repeat(1_000_000) };
    const { workdir, patch } = await patchClient(files);
    const result = await patch(envelope("x.txt", ["@@", ...Array(100_000).fill(" x"), "-y"]));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'hunk 1 of x.txt does not match the file: no place in the file has its context and removed lines, which begin:\n  x\n  x\n  x\nThe closest place is line 1, where 100,000 of 100,001 lines agree; line 100001 of the file is "x" but the patch expects "y". Read the file and make the patch again. Nothing was changed.',
    );
    expect(await treeOf(workdir)).toEqual(files);
  }, 60_000);

  it("the same hunk that does match is placed (at its one place, after 999,999 lines that almost do)", async () => {
    const files = { "x.txt": `${"x\n".repeat(1_000_000)}y\n` };
    const { workdir, patch } = await patchClient(files);
    const result = await patch(envelope("x.txt", ["@@", ...Array(100_000).fill(" x"), "-y", "+z"]));
    expect(textOf(result)).toBe("Applied the patch: 1 file changed.\n  M x.txt (+1 -1)");
    expect(await readFile(path.join(workdir, "x.txt"), "utf8")).toBe(`${"x\n".repeat(1_000_000)}z\n`);
  }, 60_000);

  it("2,000,000 blank lines around a patch are left out at once", async () => {
    const { workdir, patch } = await patchClient({ "a.txt": "1\n2\n" });
    const blank = "\n".repeat(2_000_000);
    const result = await patch(`${blank}${envelope("a.txt", ["@@", " 1", "-2", "+two"])}${blank}`);
    expect(textOf(result)).toBe("Applied the patch: 1 file changed.\n  M a.txt (+1 -1)");
    expect(await readFile(path.join(workdir, "a.txt"), "utf8")).toBe("1\ntwo\n");
  }, 60_000);

  it("hunks whose lines recur everywhere without lining up are refused past the work allowed, naming the file and what to do; nothing changed", async () => {
    // Every line occurs exactly and with its trailing space, but only the trimmed lines line up: each hunk looked
    // through the rest of the file twice before its place.
    const files = {
      "alt.txt": `${Array.from({ length: 200_000 }, (_, i) => (i % 2 ? " x" : "x")).join("\n")}\n`,
    };
    const { workdir, patch } = await patchClient(files);
    const hunks = Array.from({ length: 2_000 }, () => ["@@", "  x", "  x"]).flat();
    const result = await patch(envelope("alt.txt", hunks));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "alt.txt: the patch's hunks could not be placed within the work allowed (50,000,000 line comparisons): their context lines recur throughout the file's 200,000 lines without lining up. Give each hunk a few lines that occur only there (or `@@ <line>` to seek to), or fewer hunks per patch. Nothing was changed.",
    );
    expect(await treeOf(workdir)).toEqual(files);
  }, 60_000);

  it("a refusal quotes a megabyte-long line cut, and counts lines as the file on disk has them", async () => {
    const long = "m".repeat(1_000_000);
    const files = { "min.js": `a\n${long}\nb\n` };
    const { workdir, patch } = await patchClient(files);
    // The first hunk adds two lines at the top; the second does not match. Its lines are the file's as it is.
    const result = await patch(envelope("min.js", ["@@", "+one", "+two", " a", "@@", " b", "-c"]));
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toBe(
      `hunk 2 of min.js does not match the file: no place after line 1 has its context and removed lines, which begin:\n  b\n  c\nThe closest place is line 3, where 1 of 2 lines agree; line 4 of the file is "(end of file)" but the patch expects "c". Read the file and make the patch again. Nothing was changed.`,
    );
    const other = await patch(envelope("min.js", ["@@", " a", "-q"]));
    expect(textOf(other)).toContain(
      `line 2 of the file is "${"m".repeat(200)}…" (1,000,000 characters) but the patch expects "q".`,
    );
    expect(textOf(other).length).toBeLessThan(1_000);
    expect(await treeOf(workdir)).toEqual(files);
  }, 60_000);

  it("a hunk that adds 1,200,000 lines is applied (spread as arguments, it overflowed the stack)", async () => {
    const { workdir, patch } = await patchClient({ "a.txt": "1\n" });
    const result = await patch(envelope("a.txt", ["@@", " 1", ...Array(1_200_000).fill("+n")]));
    expect(textOf(result)).toBe("Applied the patch: 1 file changed.\n  M a.txt (+1200000 -0)");
    expect(await readFile(path.join(workdir, "a.txt"), "utf8")).toBe(`1\n${"n\n".repeat(1_200_000)}`);
  }, 60_000);

  it("a unified hunk whose header's line number is 400 digits long is placed at the nearest place (the last)", async () => {
    const { workdir, patch } = await patchClient({ "a.txt": "k\n1\nk\n2\n" });
    const result = await patch(
      ["--- a/a.txt", "+++ b/a.txt", `@@ -${"9".repeat(400)},1 +1,1 @@`, "-k", "+K"].join("\n"),
    );
    expect(textOf(result)).toBe("Applied the patch: 1 file changed.\n  M a.txt (+1 -1)");
    expect(await readFile(path.join(workdir, "a.txt"), "utf8")).toBe("k\n1\nK\n2\n");
  }, 60_000);
});
