/**
 * Language-server answers quote only the workdir and the run's library roots: a `../outside` import, a committed
 * symlink to a folder outside, and pyright's extraPaths all lead a real server to a file `read` refuses — its
 * location is named, its lines are not shown, on a plan surface (TypeScript 7 and pyright). Here the run does not
 * confine (`confine: "off"`), so the servers run on the host and do read those files: the answers must still not
 * quote them. Confined (the default), a server has no such file at all (`isolation-lsp`).
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import { call, textOf } from "./helpers.js";

describe("lsp answers never quote a file outside the workdir", () => {
  let base = "";
  let run: Run;
  const lsp = async (args: Record<string, unknown>) =>
    textOf(await call(await run.link({ surface: "plan" }), "lsp", args));

  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), "runbound-outside-"));
    const files: Record<string, string> = {
      "outside/secret.ts": 'export const secret = "TOP-SECRET-LINE";\n',
      "outside2/other.ts": 'export const other = "ALSO-SECRET-LINE";\n',
      "outside/secret_mod.py": 'SECRET = "PY-SECRET-LINE"\n"""PY-SECRET-DOC"""\n',
      "project/tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, target: "es2022" } }),
      "project/main.ts":
        'import { secret } from "../outside/secret";\nimport { other } from "./vendor/other";\nconsole.log(secret, other);\n',
      "project/pyrightconfig.json": JSON.stringify({ extraPaths: ["../outside"] }),
      "project/app.py": "from secret_mod import SECRET\nprint(SECRET)\n",
    };
    for (const [name, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(base, name)), { recursive: true });
      await writeFile(path.join(base, name), content);
    }
    // A committed symlink that leads out of the workdir.
    await symlink("../outside2", path.join(base, "project", "vendor"));
    run = await createRun({ workdir: path.join(base, "project"), kernels: false, confine: "off" });
  });
  afterAll(async () => {
    await run.dispose();
    await rm(base, { recursive: true, force: true });
  });

  it("TypeScript 7: definition and references name the outside file without its lines; the hover says so", async () => {
    for (const [line, symbol, secret] of [
      [1, "secret", "TOP-SECRET-LINE"],
      [2, "other", "ALSO-SECRET-LINE"],
    ] as const) {
      const definition = await lsp({ action: "definition", file: "main.ts", line, symbol });
      expect(definition).toMatch(
        /(outside|vendor)\/(secret|other)\.ts:1 {2}\(outside the workdir: not shown\)/,
      );
      expect(definition).not.toContain(secret);
      const hover = await lsp({ action: "hover", file: "main.ts", line, symbol });
      expect(hover).toContain("The symbol is defined outside the workdir");
      expect(hover).not.toContain(secret);
    }
    const references = await lsp({ action: "references", file: "main.ts", line: 3, symbol: "secret" });
    expect(references).toContain("(outside the workdir: not shown)");
    expect(references).not.toContain("TOP-SECRET-LINE");
    // Inside the workdir and the library roots, lines are shown as ever: TypeScript's own lib.
    const lib = await lsp({ action: "definition", file: "main.ts", line: 3, symbol: "console" });
    expect(lib).toMatch(/lib\.[\w.]*\.d\.ts:\d+ {2}\S/);
    expect(lib).not.toContain("not shown");
  });

  it("pyright with extraPaths outside: the definition and the hover do not quote the module", async () => {
    const definition = await lsp({ action: "definition", file: "app.py", line: 2, symbol: "SECRET" });
    expect(definition).toContain("(outside the workdir: not shown)");
    expect(definition).not.toContain("PY-SECRET");
    const hover = await lsp({ action: "hover", file: "app.py", line: 2, symbol: "SECRET" });
    expect(hover).not.toContain("PY-SECRET");
  });
});
