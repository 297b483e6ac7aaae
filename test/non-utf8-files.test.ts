/**
 * A file that is not UTF-8 (a Latin-1 comment): a lossy decode puts U+FFFD where its bytes were, so writing the
 * decoded text back changed lines nobody edited. Every tool that changes files refuses such a file whole, naming
 * it and the line, with nothing changed on disk; read says so above what it shows.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createRun } from "../src/index.js";
import { call, fakeServer, textOf, track, workdirWith } from "./helpers.js";

/** `# café` in Latin-1 (0xE9 is not UTF-8 on its own), between two lines of UTF-8. */
const LATIN1 = Buffer.concat([Buffer.from("x = 1\n# caf"), Buffer.from([0xe9]), Buffer.from("\ny = 2\n")]);
const REFUSED =
  /^(lsp_rename: )?(a|lib)\.\w+ is not UTF-8 text \(line 2 has bytes that are not UTF-8: Latin-1 or another legacy encoding\?\)\. Writing it back would replace those bytes with U\+FFFD, so nothing was (changed|staged)\. Convert the file to UTF-8 first/;

async function latin1Run(files: Record<string, string> = {}) {
  const workdir = await workdirWith(files);
  const { writeFile } = await import("node:fs/promises");
  await writeFile(path.join(workdir, "a.py"), LATIN1);
  const run = track(await createRun({ workdir, approver: "always", lsp: false, kernels: false }));
  const bytes = () => readFile(path.join(workdir, "a.py"));
  return { workdir, client: await run.link({ surface: "full" }), bytes };
}

describe("files that are not UTF-8", () => {
  it("edit and apply_patch refuse them, naming the line, and leave every byte as it was", async () => {
    const { client, bytes } = await latin1Run();
    const edit = await call(client, "edit", { path: "a.py", old_string: "y = 2", new_string: "y = 3" });
    expect(edit.isError).toBe(true);
    expect(textOf(edit)).toMatch(REFUSED);
    const patch = await call(client, "apply_patch", {
      patch: "*** Begin Patch\n*** Update File: a.py\n@@\n-y = 2\n+y = 3\n*** End Patch\n",
    });
    expect(patch.isError).toBe(true);
    expect(textOf(patch)).toMatch(REFUSED);
    expect((await bytes()).equals(LATIN1)).toBe(true);
  });

  it("ast_edit refuses to stage a rewrite of one (in a folder too), and read says what it shows", async () => {
    const { client, bytes } = await latin1Run({ "b.py": "y = 2\n" });
    for (const where of [{ path: "a.py" }, { path: ".", language: "python" }]) {
      const staged = await call(client, "ast_edit", { pattern: "y = $V", rewrite: "y = 4", ...where });
      expect(staged.isError, where.path).toBe(true);
      expect(textOf(staged)).toMatch(REFUSED);
      expect(textOf(staged)).toContain("or narrow `path` to leave it out.");
    }
    expect((await bytes()).equals(LATIN1)).toBe(true);
    expect(
      textOf(await call(client, "ast_edit", { pattern: "y = $V", rewrite: "y = 4", path: "b.py" })),
    ).toMatch(/^\(proposed\) 1 replacement in 1 file/);
    expect(textOf(await call(client, "read", { path: "a.py" }))).toBe(
      "a.py (3 lines; not UTF-8: line 2 has bytes shown as \uFFFD, and the tools that change files refuse it until it is converted)\n1\tx = 1\n2\t# caf\uFFFD\n3\ty = 2",
    );
  });

  it("a UTF-8 file that holds U+FFFD itself is edited as any other", async () => {
    const { client } = await latin1Run({ "u.py": "# caf\uFFFD\ny = 2\n" });
    const edit = await call(client, "edit", { path: "u.py", old_string: "y = 2", new_string: "y = 3" });
    expect(textOf(edit)).toBe("Edited u.py: 1 replacement at line 2.");
    expect(textOf(await call(client, "read", { path: "u.py" }))).toBe(
      "u.py (2 lines)\n1\t# caf\uFFFD\n2\ty = 3",
    );
  });

  it("lsp_rename refuses a server's edit of one: nothing is changed in any file", async () => {
    const workdir = await workdirWith({ "fake.toml": "", "b.fake": "one\n" });
    const { writeFile } = await import("node:fs/promises");
    const latin1 = Buffer.concat([Buffer.from("one\n# caf"), Buffer.from([0xe9]), Buffer.from("\n")]);
    await writeFile(path.join(workdir, "lib.fake"), latin1);
    const run = track(
      await createRun({
        workdir,
        approver: "always",
        kernels: false,
        lsp: { servers: [fakeServer("normal")] },
      }),
    );
    const client = await run.link({ surface: "full" });
    const renamed = await call(client, "lsp_rename", {
      file: "lib.fake",
      line: 1,
      symbol: "one",
      new_name: "uno",
    });
    expect(renamed.isError).toBe(true);
    expect(textOf(renamed)).toMatch(REFUSED);
    expect((await readFile(path.join(workdir, "lib.fake"))).equals(latin1)).toBe(true);
  });
});
