/**
 * Line endings through the tools that change files: lines an edit does not touch keep theirs, byte for byte, in a
 * file that mixes them (edit and apply_patch wrote every line with the file's dominant ending), and the lines an
 * edit writes take the ending of the line they replace — in a CRLF file an ast_edit rewrite's line breaks are
 * CRLF (its template's "\n" went in as they were).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

/** CRLF lines with one LF line (d) among them, and a BOM. */
const MIXED = "\uFEFFa = 1\r\nb = 2\r\nc = 3\r\nd = 4\ne = 5\r\n";

async function tools(files: Record<string, string>) {
  const workdir = await workdirWith(files);
  const run = track(await createRun({ workdir, approver: "always", lsp: false, kernels: false }));
  const client = await run.link({ surface: "full" });
  return {
    client,
    text: (file: string) => readFile(path.join(workdir, file), "utf8"),
  };
}

describe("line endings are kept where nothing was edited", () => {
  it("edit: an untouched LF line in a CRLF file stays LF; a line written beside it takes its ending", async () => {
    const { client, text } = await tools({ "m.py": MIXED, "n.py": MIXED });
    const first = await call(client, "edit", { path: "m.py", old_string: "a = 1", new_string: "a = 10" });
    expect(textOf(first)).toBe("Edited m.py: 1 replacement at line 1.");
    expect(await text("m.py")).toBe("\uFEFFa = 10\r\nb = 2\r\nc = 3\r\nd = 4\ne = 5\r\n");
    await call(client, "edit", { path: "n.py", old_string: "d = 4", new_string: "d = 4\nd2 = 4" });
    await call(client, "edit", { path: "n.py", old_string: "b = 2\nc = 3", new_string: "bc = 5\ncb = 6" });
    expect(await text("n.py")).toBe("\uFEFFa = 1\r\nbc = 5\r\ncb = 6\r\nd = 4\nd2 = 4\ne = 5\r\n");
  });

  it("apply_patch: the same, and a context line matched without its trailing spaces keeps them", async () => {
    const { client, text } = await tools({ "m.py": MIXED, "s.py": "x = 1   \r\ny = 2\r\n" });
    const mixed = await call(client, "apply_patch", {
      patch:
        "*** Begin Patch\n*** Update File: m.py\n@@\n c = 3\n-d = 4\n+d = 40\n+d2 = 4\n e = 5\n*** End Patch\n",
    });
    expect(mixed.isError, textOf(mixed)).toBeFalsy();
    expect(await text("m.py")).toBe("\uFEFFa = 1\r\nb = 2\r\nc = 3\r\nd = 40\nd2 = 4\ne = 5\r\n");
    const spaced = await call(client, "apply_patch", {
      patch: "*** Begin Patch\n*** Update File: s.py\n@@\n x = 1\n-y = 2\n+y = 3\n*** End Patch\n",
    });
    expect(spaced.isError, textOf(spaced)).toBeFalsy();
    expect(await text("s.py")).toBe("x = 1   \r\ny = 3\r\n");
  });

  it("ast_edit: a rewrite of several lines into a CRLF file is written with CRLF; an LF file keeps LF", async () => {
    const { client, text } = await tools({ "c.py": "a = 1\r\nb = 2\r\n", "l.py": "a = 1\nb = 2\n" });
    for (const file of ["c.py", "l.py"]) {
      const staged = await call(client, "ast_edit", {
        pattern: "b = $V",
        rewrite: "b = $V\nb2 = $V",
        path: file,
      });
      const id = (staged.structuredContent as { edit_id: string }).edit_id;
      expect(textOf(await call(client, "resolve", { edit_id: id, action: "accept" }))).toMatch(/^Applied/);
    }
    expect(await text("c.py")).toBe("a = 1\r\nb = 2\r\nb2 = 2\r\n");
    expect(await text("l.py")).toBe("a = 1\nb = 2\nb2 = 2\n");
  });
});

describe("write over a file keeps its shape", () => {
  it("content written with \\n over a CRLF file with a BOM gets both back, and the answer says so", async () => {
    const { client, text } = await tools({ "w.py": "\uFEFFa = 1\r\nb = 2\r\n", "u.py": "a = 1\r\n" });
    const over = await call(client, "write", { path: "w.py", content: "a = 1\nb = 3\n" });
    expect(textOf(over)).toBe(
      "Overwrote w.py (2 lines, 17 bytes; written with CRLF line endings and a byte order mark, as the file had them).",
    );
    expect(await text("w.py")).toBe("\uFEFFa = 1\r\nb = 3\r\n");
    expect(textOf(await call(client, "write", { path: "w.py", content: "a = 1\nb = 3\n" }))).toBe(
      "w.py unchanged (the content is the same).",
    );
    // Content that has its own CRLF is written as given; a new file too.
    await call(client, "write", { path: "u.py", content: "a = 1\r\nb = 2\n" });
    expect(await text("u.py")).toBe("a = 1\r\nb = 2\n");
    expect(textOf(await call(client, "write", { path: "new.py", content: "x = 1\n" }))).toBe(
      "Created new.py (1 line, 6 bytes).",
    );
  });
});
