import { spawnSync } from "node:child_process";
import { chmod, readFile, stat } from "node:fs/promises";
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

const stock = "class Stock:\n    def add(self):\n        pass\n\n    def remove(self):\n        pass\n";

describe("apply_patch: the *** Begin Patch envelope", () => {
  it("adds, updates (with an @@ anchor), deletes and moves in one patch", async () => {
    const { workdir, patch } = await patchClient({
      "stock.py": stock,
      "old.txt": "bye\n",
      "a/m.txt": "1\n2\n3\n",
    });
    const result = await patch(
      [
        "*** Begin Patch",
        "*** Add File: docs/new.md",
        "+# New",
        "+text",
        "*** Update File: stock.py",
        "@@     def remove(self):",
        "-        pass",
        "+        raise NotImplementedError",
        "*** Delete File: old.txt",
        "*** Update File: a/m.txt",
        "*** Move to: b/m.txt",
        "@@",
        " 1",
        "-2",
        "+two",
        " 3",
        "*** End Patch",
      ].join("\n"),
    );
    expect(textOf(result)).toBe(
      "Applied the patch: 4 files changed.\n  A docs/new.md (+2 -0)\n  M stock.py (+1 -1)\n  D old.txt\n  R a/m.txt → b/m.txt (+1 -1)",
    );
    expect(await treeOf(workdir)).toEqual({
      "docs/new.md": "# New\ntext\n",
      "stock.py": stock.replace(
        "    def remove(self):\n        pass",
        "    def remove(self):\n        raise NotImplementedError",
      ),
      "b/m.txt": "1\ntwo\n3\n",
    });
  });

  it("tolerates trailing-whitespace differences, keeps CRLF and the file mode", async () => {
    const { workdir, patch } = await patchClient({ "w.sh": "#!/bin/sh\r\necho a   \r\necho b\r\n" });
    await chmod(path.join(workdir, "w.sh"), 0o755);
    const result = await patch(
      "*** Begin Patch\n*** Update File: w.sh\n-echo a\n+echo A\n echo b\n*** End Patch\n",
    );
    expect(result.isError).toBeFalsy();
    expect(await readFile(path.join(workdir, "w.sh"), "utf8")).toBe("#!/bin/sh\r\necho A\r\necho b\r\n");
    expect((await stat(path.join(workdir, "w.sh"))).mode & 0o777).toBe(0o755);
  });

  it("an *** End of File hunk matches only at the end", async () => {
    const { workdir, patch } = await patchClient({ "f.txt": "x\ny\nx\n" });
    await patch("*** Begin Patch\n*** Update File: f.txt\n-x\n+z\n*** End of File\n*** End Patch");
    expect(await readFile(path.join(workdir, "f.txt"), "utf8")).toBe("x\ny\nz\n");
  });
});

describe("apply_patch: unified diffs", () => {
  it("applies a git diff with several hunks, a new file, a deletion and a rename", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    const { workdir, patch } = await patchClient({
      "src/long.txt": `${lines.join("\n")}\n`,
      "gone.txt": "x\n",
      "from.txt": "same\n",
    });
    const diff = [
      "diff --git a/src/long.txt b/src/long.txt",
      "index 1111111..2222222 100644",
      "--- a/src/long.txt",
      "+++ b/src/long.txt",
      "@@ -2,3 +2,3 @@",
      " line 2",
      "-line 3",
      "+line three",
      " line 4",
      "@@ -27,3 +27,4 @@ context label",
      " line 27",
      " line 28",
      "+line 28.5",
      " line 29",
      "diff --git a/new.txt b/new.txt",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/new.txt",
      "@@ -0,0 +1,2 @@",
      "+hello",
      "+world",
      "diff --git a/gone.txt b/gone.txt",
      "deleted file mode 100644",
      "--- a/gone.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-x",
      "diff --git a/from.txt b/to.txt",
      "similarity index 100%",
      "rename from from.txt",
      "rename to to.txt",
    ].join("\n");
    const result = await patch(diff);
    expect(textOf(result)).toBe(
      "Applied the patch: 4 files changed.\n  M src/long.txt (+2 -1)\n  A new.txt (+2 -0)\n  D gone.txt\n  R from.txt → to.txt (+0 -0)",
    );
    const expected = [...lines];
    expected[2] = "line three";
    expected.splice(28, 0, "line 28.5");
    expect(await treeOf(workdir)).toEqual({
      "src/long.txt": `${expected.join("\n")}\n`,
      "new.txt": "hello\nworld\n",
      "to.txt": "same\n",
    });
  });

  it("uses the line numbers to pick among repeated blocks, and honours 'No newline at end of file'", async () => {
    const { workdir, patch } = await patchClient({ "r.txt": "a\nb\na\nb\nend" });
    const diff = [
      "--- r.txt",
      "+++ r.txt",
      "@@ -3,3 +3,3 @@",
      " a",
      "-b",
      "+B",
      " end",
      "\\ No newline at end of file",
    ].join("\n");
    expect((await patch(diff)).isError).toBeFalsy();
    expect(await readFile(path.join(workdir, "r.txt"), "utf8")).toBe("a\nb\na\nB\nend");
  });
});

describe("apply_patch is all or nothing", () => {
  it("a bad hunk in the second file leaves the first file, and everything else, untouched", async () => {
    const files = { "a.txt": "1\n2\n3\n", "b.txt": "x\ny\n" };
    const { workdir, patch } = await patchClient(files);
    const result = await patch(
      [
        "*** Begin Patch",
        "*** Update File: a.txt",
        "-2",
        "+two",
        "*** Add File: c.txt",
        "+new",
        "*** Update File: b.txt",
        " x",
        "-NOT THERE",
        "+z",
        "*** End Patch",
      ].join("\n"),
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'hunk 1 of b.txt does not match the file: no place in the file has its context and removed lines, which begin:\n  x\n  NOT THERE\nThe closest place is line 1, where 1 of 2 lines agree; line 2 of the file is "y" but the patch expects "NOT THERE". Read the file and make the patch again. Nothing was changed.',
    );
    expect(await treeOf(workdir)).toEqual(files);
  });

  // chattr +i makes a file (or folder) immutable even for root, so a rename over it fails for real. The project's
  // machines and CI run as root on ext4; without that capability this test fails and says why.
  const immutable = (target: string, on: boolean) => {
    const result = spawnSync("chattr", [on ? "+i" : "-i", target], { encoding: "utf8" });
    if (result.status !== 0)
      throw new Error(`chattr needs root on ext4 here: ${result.stderr || result.error}`);
  };

  it("a rename that fails halfway through the commit restores the files already replaced", async () => {
    const files = { "a.txt": "1\n", "b.txt": "2\n", "c.txt": "3\n" };
    const { workdir, patch } = await patchClient(files);
    immutable(path.join(workdir, "c.txt"), true);
    try {
      const result = await patch(
        "*** Begin Patch\n*** Update File: a.txt\n-1\n+one\n*** Add File: new.txt\n+n\n*** Update File: c.txt\n-3\n+three\n*** Delete File: b.txt\n*** End Patch",
      );
      expect(textOf(result)).toMatch(
        /^apply_patch failed while writing \(EPERM.*\); the files already written were restored\. Nothing was changed\.$/,
      );
    } finally {
      immutable(path.join(workdir, "c.txt"), false);
    }
    expect(await treeOf(workdir)).toEqual(files);
  });

  it("a temporary file that cannot be created leaves every file as it was", async () => {
    const files = { "a.txt": "1\n", "locked/b.txt": "2\n" };
    const { workdir, patch } = await patchClient(files);
    immutable(path.join(workdir, "locked"), true);
    try {
      const result = await patch(
        "*** Begin Patch\n*** Update File: a.txt\n-1\n+one\n*** Update File: locked/b.txt\n-2\n+two\n*** End Patch",
      );
      expect(textOf(result)).toMatch(
        /^apply_patch could not write a temporary file \(EPERM.*\)\. Nothing was changed\.$/,
      );
    } finally {
      immutable(path.join(workdir, "locked"), false);
    }
    expect(await treeOf(workdir)).toEqual(files);
  });

  it.each([
    ["a patch in neither format", "just some text", /^`patch` is in neither format apply_patch takes/],
    [
      "a missing *** End Patch",
      "*** Begin Patch\n*** Delete File: a.txt",
      /^`patch` line 2: the patch must end with `\*\*\* End Patch`/,
    ],
    [
      "an unknown section",
      "*** Begin Patch\n*** Rename File: a.txt\n*** End Patch",
      /^`patch` line 2: expected `\*\*\* Add File: path`/,
    ],
    [
      "an add of an existing file",
      "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch",
      /^a.txt already exists; use `\*\*\* Update File: a.txt`/,
    ],
    [
      "an update of a missing file",
      "*** Begin Patch\n*** Update File: zz.txt\n-a\n+b\n*** End Patch",
      /^zz.txt does not exist, so the patch cannot update it/,
    ],
    [
      "a bad hunk line",
      "*** Begin Patch\n*** Update File: a.txt\n@@\n?1\n*** End Patch",
      /^`patch` line 4: a hunk line starts with " " \(context\), "-" \(remove\) or "\+" \(add\), got "\?1"/,
    ],
    [
      "the same file twice",
      "*** Begin Patch\n*** Update File: a.txt\n-1\n+2\n*** Delete File: a.txt\n*** End Patch",
      /^`patch` touches a.txt twice \(update, then delete\)/,
    ],
    [
      "a move onto an existing file",
      "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n*** End Patch",
      /^cannot move a.txt to b.txt: it already exists/,
    ],
    [
      "a move out of the workdir",
      "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../x.txt\n*** End Patch",
      /^`move path` "..\/x.txt" is outside the workdir/,
    ],
    [
      "a unified hunk shorter than its header",
      "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n 1",
      /the patch ends inside a hunk/,
    ],
  ])("%s is refused with a reason and nothing changes", async (_name, text, message) => {
    const files = { "a.txt": "1\n", "b.txt": "b\n" };
    const { workdir, patch } = await patchClient(files);
    const result = await patch(text);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(message);
    expect(await treeOf(workdir)).toEqual(files);
  });
});
