import { chmod, mkdir, readFile, stat, symlink, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { call, textOf, track, treeOf, workdirWith } from "./helpers.js";

async function fileClient(files: Record<string, string> = {}) {
  const workdir = await workdirWith(files);
  const run = track(await createRun({ workdir, approver: "always", lsp: false }));
  return { workdir, client: await run.link({ surface: "full" }), run };
}

describe("read", () => {
  it("numbers lines 1-based and pages with offset/limit", async () => {
    const { client } = await fileClient({ "src/a.py": "one\ntwo\nthree\nfour\n" });
    const all = await call(client, "read", { path: "src/a.py" });
    expect(textOf(all)).toBe("src/a.py (4 lines)\n1\tone\n2\ttwo\n3\tthree\n4\tfour");
    const page = await call(client, "read", { path: "src/a.py", offset: 2, limit: 2 });
    expect(textOf(page)).toBe(
      "src/a.py (4 lines)\n2\ttwo\n3\tthree\n(showing lines 2-3 of 4; call read with offset 4 for more)",
    );
    expect(page.structuredContent).toEqual({
      path: "src/a.py",
      kind: "file",
      content: "two\nthree",
      from_line: 2,
      to_line: 3,
      total_lines: 4,
      truncated: true,
    });
  });

  it("lists a directory, reads CRLF and non-ASCII text, refuses binary and a missing path", async () => {
    const { client, workdir } = await fileClient({ "d/x.txt": "héllo → wörld\r\nzwei\r\n", "d/sub/y": "" });
    await writeFile(path.join(workdir, "d/bin"), Buffer.from([0x89, 0x50, 0, 1, 2]));
    expect(textOf(await call(client, "read", { path: "d" }))).toBe(
      "d/ is a directory (3 entries):\nbin\nsub/\nx.txt",
    );
    expect(textOf(await call(client, "read", { path: "d/x.txt" }))).toBe(
      "d/x.txt (2 lines)\n1\théllo → wörld\n2\tzwei",
    );
    expect(textOf(await call(client, "read", { path: "d/bin" }))).toBe(
      "d/bin is a binary file (5 bytes); read shows text only.",
    );
    expect(textOf(await call(client, "read", { path: "d/nope.txt" }))).toMatch(
      /^d\/nope.txt does not exist\. Check the path/,
    );
    expect(textOf(await call(client, "read", { path: "d/x.txt", offset: 9 }))).toBe(
      "`offset` 9 is past the end: d/x.txt has 2 lines. Use an offset from 1 to 2.",
    );
  });
});

describe("write", () => {
  it("creates parent folders, overwrites keeping the file mode, and reports unchanged content", async () => {
    const { client, workdir } = await fileClient({ "bin/run.sh": "#!/bin/sh\n" });
    await chmod(path.join(workdir, "bin/run.sh"), 0o755);
    const created = await call(client, "write", { path: "a/b/c.txt", content: "x\ny\n" });
    expect(textOf(created)).toBe("Created a/b/c.txt (2 lines, 4 bytes).");
    const over = await call(client, "write", { path: "bin/run.sh", content: "#!/bin/sh\necho hi\n" });
    expect(textOf(over)).toBe("Overwrote bin/run.sh (2 lines, 18 bytes).");
    expect((await stat(path.join(workdir, "bin/run.sh"))).mode & 0o777).toBe(0o755);
    const same = await call(client, "write", { path: "bin/run.sh", content: "#!/bin/sh\necho hi\n" });
    expect(same.structuredContent).toMatchObject({ status: "unchanged" });
    expect(await treeOf(workdir)).toEqual({ "a/b/c.txt": "x\ny\n", "bin/run.sh": "#!/bin/sh\necho hi\n" });
  });

  it("a name or a path too long for the system, and edit on a folder, are the argument's fault, said as such", async () => {
    const { client, workdir } = await fileClient({ "d/x": "1" });
    // Each read as "failed inside runbound: ENAMETOOLONG / EISDIR" before.
    expect(textOf(await call(client, "read", { path: "a".repeat(300) }))).toBe(
      `\`path\` has a name of 300 bytes ("${"a".repeat(40)}…"); a file or folder name may have at most 255 bytes.`,
    );
    expect(textOf(await call(client, "write", { path: "d/".repeat(2100), content: "x" }))).toMatch(
      /^`path` is [\d,]+ bytes long as a full path; a path may have at most 4,095\. Give a shorter one\.$/,
    );
    expect(textOf(await call(client, "edit", { path: "d", old_string: "1", new_string: "2" }))).toBe(
      "`path` d is a directory; edit changes a file: give a file's path.",
    );
    expect(await treeOf(workdir)).toEqual({ "d/x": "1" });
  });

  it("refuses to write over a directory", async () => {
    const { client, workdir } = await fileClient({ "d/x": "1" });
    expect(textOf(await call(client, "write", { path: "d", content: "x" }))).toBe(
      "d is a directory; give a file path to write.",
    );
    expect(await treeOf(workdir)).toEqual({ "d/x": "1" });
  });
});

describe("edit", () => {
  it("replaces a unique match and keeps CRLF line endings", async () => {
    const { client, workdir } = await fileClient({ "w.txt": "alpha\r\nbeta\r\ngamma\r\n" });
    const result = await call(client, "edit", {
      path: "w.txt",
      old_string: "beta\ngamma",
      new_string: "BETA\ngamma",
    });
    expect(textOf(result)).toBe("Edited w.txt: 1 replacement at line 2.");
    expect(await readFile(path.join(workdir, "w.txt"), "utf8")).toBe("alpha\r\nBETA\r\ngamma\r\n");
  });

  it("refuses an ambiguous match unless replace_all, and says where the matches are", async () => {
    const { client, workdir } = await fileClient({ "w.txt": "x = 1\ny = 2\nx = 1\n" });
    expect(
      textOf(await call(client, "edit", { path: "w.txt", old_string: "x = 1", new_string: "x = 3" })),
    ).toBe(
      "`old_string` occurs 2 times in w.txt (lines 1, 3); include more surrounding lines to make it unique, or set `replace_all: true`.",
    );
    expect(await treeOf(workdir)).toEqual({ "w.txt": "x = 1\ny = 2\nx = 1\n" });
    const all = await call(client, "edit", {
      path: "w.txt",
      old_string: "x = 1",
      new_string: "x = 3",
      replace_all: true,
    });
    expect(textOf(all)).toBe("Edited w.txt: 2 replacements at lines 1, 3.");
  });

  it("a near miss points at the line that differs only in whitespace", async () => {
    const { client, workdir } = await fileClient({ "f.py": "def f():\n    return 1\n" });
    const result = await call(client, "edit", {
      path: "f.py",
      old_string: "\treturn 1",
      new_string: "\treturn 2",
    });
    expect(textOf(result)).toBe(
      "`old_string` was not found in f.py. Its first line appears (ignoring indentation) at line 2; check whitespace and the lines after it.",
    );
    expect(textOf(await call(client, "edit", { path: "f.py", old_string: "", new_string: "x" }))).toMatch(
      /^`old_string` is empty/,
    );
    expect(textOf(await call(client, "edit", { path: "f.py", old_string: "a", new_string: "a" }))).toMatch(
      /are the same; nothing to change/,
    );
    expect(await treeOf(workdir)).toEqual({ "f.py": "def f():\n    return 1\n" });
  });
});

describe("a file too large to read whole", () => {
  it("edit and apply_patch refuse it by its size at once; write replaces it without reading it", async () => {
    const { workdir, client } = await fileClient({ "big.log": "hello\n" });
    // Sparse: 600 MB on paper, nothing on disk. Read whole it was 4 s and a "failed inside runbound" (the text is
    // longer than a JavaScript string can be).
    await truncate(path.join(workdir, "big.log"), 600 * 2 ** 20);
    const tooLarge = (tool: string) =>
      `big.log is 600.0 MB, over the 50.0 MB ${tool} reads whole; nothing was changed. Change a file this large with a stream editor (sed) or a script.`;
    const edit = await call(client, "edit", { path: "big.log", old_string: "hello", new_string: "bye" });
    expect(textOf(edit)).toBe(tooLarge("edit"));
    const patch = await call(client, "apply_patch", {
      patch: "*** Begin Patch\n*** Update File: big.log\n@@\n-hello\n+bye\n*** End Patch\n",
    });
    expect(textOf(patch)).toBe(tooLarge("apply_patch"));
    expect((await stat(path.join(workdir, "big.log"))).size).toBe(600 * 2 ** 20);
    expect(textOf(await call(client, "write", { path: "big.log", content: "bye\n" }))).toBe(
      "Overwrote big.log (1 line, 4 bytes).",
    );
  });
});

describe("every file tool is confined to the workdir", () => {
  const patchFor = (p: string) => `*** Begin Patch\n*** Add File: ${p}\n+x\n*** End Patch`;
  const attempts = (p: string): [string, Record<string, unknown>][] => [
    ["read", { path: p }],
    ["write", { path: p, content: "x" }],
    ["edit", { path: p, old_string: "secret", new_string: "public" }],
    ["apply_patch", { patch: patchFor(p) }],
  ];

  async function escapeSetup() {
    const outside = await workdirWith({ "secret.txt": "secret\n" });
    const { client, workdir } = await fileClient({ "in.txt": "secret\n" });
    await symlink(path.join(outside, "secret.txt"), path.join(workdir, "link-to-file"));
    await symlink(outside, path.join(workdir, "link-to-dir"));
    return { client, workdir, outside };
  }

  it.each([
    ["a .. that leaves the workdir", (_w: string, _o: string) => "../secret.txt", /is outside the workdir/],
    [
      "an absolute path outside it",
      (_w: string, o: string) => path.join(o, "secret.txt"),
      /is outside the workdir/,
    ],
    [
      "a symlinked file that leads out",
      () => "link-to-file",
      /goes through a symbolic link that leads outside the workdir/,
    ],
    [
      "a path through a symlinked folder",
      () => "link-to-dir/secret.txt",
      /goes through a symbolic link that leads outside the workdir/,
    ],
    [
      "a new file under a symlinked folder",
      () => "link-to-dir/new.txt",
      /goes through a symbolic link that leads outside the workdir/,
    ],
  ])(
    "%s is refused by read, write, edit and apply_patch; nothing changes",
    async (_name, pathOf, message) => {
      const { client, workdir, outside } = await escapeSetup();
      const before = [await treeOf(workdir), await treeOf(outside)];
      for (const [tool, args] of attempts(pathOf(workdir, outside))) {
        const result = await call(client, tool, args);
        expect(result.isError, `${tool} should refuse`).toBe(true);
        expect(textOf(result), tool).toMatch(message);
      }
      expect([await treeOf(workdir), await treeOf(outside)]).toEqual(before);
    },
  );

  it("an absolute path inside the workdir and a symlink that stays inside are allowed", async () => {
    const { client, workdir } = await fileClient({ "real/a.txt": "a\n" });
    await symlink(path.join(workdir, "real"), path.join(workdir, "alias"));
    expect(textOf(await call(client, "read", { path: path.join(workdir, "real/a.txt") }))).toBe(
      "real/a.txt (1 line)\n1\ta",
    );
    await call(client, "write", { path: "alias/a.txt", content: "b\n" });
    expect(await readFile(path.join(workdir, "real/a.txt"), "utf8")).toBe("b\n");
  });

  it("a dangling symlink is not followed", async () => {
    const { client, workdir } = await fileClient();
    await mkdir(path.join(workdir, "d"));
    await symlink("/nonexistent/target", path.join(workdir, "d/dangling"));
    const result = await call(client, "write", { path: "d/dangling", content: "x" });
    expect(textOf(result)).toMatch(/goes through a broken symbolic link; runbound does not follow it/);
  });

  it("an empty path is refused with an example", async () => {
    const { client } = await fileClient();
    expect(textOf(await call(client, "read", { path: " " }))).toBe(
      '`path` is empty: give a path inside the workdir, e.g. "src/index.ts".',
    );
  });
});
