/**
 * A read-tier call on an untrusted repository gets no byte of a file outside the workdir. Snippets were confined,
 * but the servers' own text was not: they ran on the host and read what the repository pointed them at — a
 * TypeScript `import … from "../../outside/secret"` made a hover say `const t: "CANARY…"`, pyright's extraPaths, a C
 * `#include "/outside/x.h"` (clangd quoted it in a diagnostic) and a Go `replace … => ../outside` (the constant's
 * value in a hover and a diagnostic) the same. Servers now run in the run's sandbox, which has no such file.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import { probeBubblewrap } from "../src/proc/bubblewrap.js";
import { call, outsideCheckout, textOf } from "./helpers.js";

const bwrap = probeBubblewrap();
if (process.env.CI && !bwrap.ok) throw new Error(`isolation tests need bubblewrap: ${bwrap.why}`);

const CANARY = `CANARY${randomUUID().replaceAll("-", "").slice(0, 12)}`;

function write(base: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(base, name)), { recursive: true });
    writeFileSync(path.join(base, name), content);
  }
}

describe.skipIf(!bwrap.ok)(
  "isolation: lsp answers on an untrusted repository that points outside itself",
  () => {
    let base: string;
    let run: Run;
    const leaks: string[] = [];
    /** Each answer that carries the canary is recorded with its call, so one failure names every leak. */
    const lsp = async (args: Record<string, unknown>) => {
      const text = textOf(await call(await run.link({ surface: "plan" }), "lsp", args));
      if (process.env.SHOW_ANSWERS) console.log(JSON.stringify(args), "→", text.slice(0, 400));
      if (text.includes(CANARY)) leaks.push(`${JSON.stringify(args)} → ${text.slice(0, 300)}`);
      return text;
    };
    beforeAll(async () => {
      base = outsideCheckout("runbound-lsp-outside-");
      write(base, {
        "outside/secret.ts": `export const TOKEN = "${CANARY}";\nexport function leak(): string {\n  return TOKEN;\n}\n`,
        "outside/secret_mod.py": `SECRET = "${CANARY}"\n`,
        "outside/secret.h": `${CANARY}_t broken;\n`,
        "outside/go.mod": "module example.com/secret\n\ngo 1.21\n",
        "outside/secret.go": `package secret\n\nconst Token = "${CANARY}"\n`,
        "repo/tsconfig.json": JSON.stringify({ compilerOptions: { strict: true, target: "es2022" } }),
        "repo/package.json": "{}",
        "repo/main.ts":
          'import { TOKEN, leak } from "../outside/secret";\nconst t = TOKEN;\nexport const u = leak();\nconsole.log(t, u);\n',
        "repo/pyproject.toml": "",
        "repo/pyrightconfig.json": JSON.stringify({ extraPaths: ["../outside"] }),
        "repo/app.py": "from secret_mod import SECRET\nvalue = SECRET\nprint(value)\n",
        "repo/c/compile_flags.txt": "-std=c11\n",
        "repo/c/a.c": `#include "${path.join(base, "outside/secret.h")}"\nint main(void) { return 0; }\n`,
        "repo/go.mod":
          "module example.com/repo\n\ngo 1.21\n\nrequire example.com/secret v0.0.0\n\nreplace example.com/secret => ../outside\n",
        "repo/main.go":
          'package main\n\nimport "example.com/secret"\n\nconst c = secret.Token\n\nfunc main() { println(c) }\n',
      });
      run = await createRun({ workdir: path.join(base, "repo"), kernels: false });
    }, 60_000);
    afterAll(async () => {
      await run?.dispose();
      rmSync(base, { recursive: true, force: true });
    });

    it("TypeScript: hover, definition, diagnostics, symbols and the call hierarchy carry none of it", async () => {
      await lsp({ action: "hover", file: "main.ts", line: 2, symbol: "t" });
      await lsp({ action: "hover", file: "main.ts", line: 1, symbol: "TOKEN" });
      await lsp({ action: "definition", file: "main.ts", line: 2, symbol: "TOKEN" });
      await lsp({ action: "diagnostics", file: "main.ts" });
      await lsp({ action: "call_hierarchy", file: "main.ts", line: 3, symbol: "leak" });
      await lsp({ action: "symbols", query: "leak" });
      expect(leaks.splice(0)).toEqual([]);
    });

    it("Python (extraPaths), C (#include) and Go (replace): hover and diagnostics carry none of it", async () => {
      await lsp({ action: "hover", file: "app.py", line: 2, symbol: "value" });
      await lsp({ action: "hover", file: "app.py", line: 1, symbol: "SECRET" });
      await lsp({ action: "diagnostics", file: "app.py" });
      await lsp({ action: "diagnostics", file: "c/a.c" });
      await lsp({ action: "hover", file: "main.go", line: 5, symbol: "c" });
      await lsp({ action: "hover", file: "main.go", line: 5, symbol: "Token" });
      await lsp({ action: "diagnostics", file: "main.go" });
      expect(leaks.splice(0)).toEqual([]);
    }, 120_000);

    it('diagnostics "*" (the project checks) carries none of it', async () => {
      await lsp({ action: "diagnostics", file: "*" });
      expect(leaks.splice(0)).toEqual([]);
    }, 120_000);
  },
);
