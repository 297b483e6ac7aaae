/**
 * A named pipe in the workdir (a cell's `os.mkfifo`, a file swapped for one): opening it waits for a writer, and a
 * synchronous read of it held the host's event loop for good — read, a language server's file, a .gitignore —
 * or an asynchronous one a libuv thread (edit never answered). Every tool refuses it by what it is, at once.
 */
import { execFileSync } from "node:child_process";
import { rm } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

const refused = (rel: string, tool: string) =>
  `${rel} is a named pipe (FIFO), not a regular file; ${tool} works on regular files only (opening a pipe can wait for a writer forever). Nothing was read or changed.`;

describe("named pipes in the workdir", () => {
  it("read, edit, write and apply_patch refuse one by what it is; ast_grep searches around it", async () => {
    const workdir = await workdirWith({ "a.py": "x = 1\n" });
    execFileSync("mkfifo", [path.join(workdir, "pipe.py"), path.join(workdir, ".gitignore")]);
    const run = track(await createRun({ workdir, approver: "always", lsp: false, kernels: false }));
    const client = await run.link({ surface: "full" });
    expect(textOf(await call(client, "read", { path: "pipe.py" }))).toBe(refused("pipe.py", "read"));
    expect(textOf(await call(client, "edit", { path: "pipe.py", old_string: "x", new_string: "y" }))).toBe(
      refused("pipe.py", "edit"),
    );
    expect(textOf(await call(client, "write", { path: "pipe.py", content: "x\n" }))).toBe(
      refused("pipe.py", "write"),
    );
    const patch = "*** Begin Patch\n*** Update File: pipe.py\n@@\n-x\n+y\n*** End Patch\n";
    expect(textOf(await call(client, "apply_patch", { patch }))).toBe(refused("pipe.py", "apply_patch"));
    const search = await call(client, "ast_grep", { pattern: "x = $V", path: ".", language: "python" });
    expect(textOf(search)).toMatch(/^1 match in 1 file .*\na\.py\n {2}1 {2}x = 1$/);
    // Given as the path itself, it is said to be a pipe (it read as a folder holding no source file).
    expect(textOf(await call(client, "ast_grep", { pattern: "x = $V", path: "pipe.py" }))).toBe(
      refused("`path` pipe.py", "ast_grep"),
    );
  });

  it("lsp: a file that is a pipe is refused, and an open one swapped for a pipe does not stop the next answer", async () => {
    const workdir = await workdirWith({
      "package.json": '{ "name": "p", "type": "module" }\n',
      "tsconfig.json": '{ "compilerOptions": { "strict": true, "noEmit": true } }\n',
      "a.ts": "export const one = 1;\n",
      "b.ts": 'import { one } from "./a.js";\nexport const two = one + 1;\n',
    });
    execFileSync("mkfifo", [path.join(workdir, "c.ts"), path.join(workdir, ".gitignore")]);
    const run = track(await createRun({ workdir, approver: "always", kernels: false }));
    const client = await run.link({ surface: "full" });
    const lsp = (file: string, line: number, symbol: string) =>
      call(client, "lsp", { action: "definition", file, line, symbol });
    expect(textOf(await lsp("c.ts", 1, "x"))).toBe(refused("`file` c.ts", "lsp"));
    expect(textOf(await lsp("b.ts", 2, "one"))).toBe("a.ts:1  export const one = 1;");
    // a.ts is open on the server now; something replaces it with a pipe.
    await rm(path.join(workdir, "a.ts"));
    execFileSync("mkfifo", [path.join(workdir, "a.ts")]);
    // The server was told a.ts is gone (not of the pipe, which it would read and wait on): the name resolves to the
    // import.
    await expect
      .poll(async () => textOf(await lsp("b.ts", 2, "one")), { timeout: 10_000 })
      .toBe('b.ts:1  import { one } from "./a.js";');
    expect(textOf(await lsp("a.ts", 1, "one"))).toBe(refused("`file` a.ts", "lsp"));
  });
});
