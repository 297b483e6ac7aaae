/** The lsp actions the per-server suite does not cover: type_definition, implementation, workspace search, "*", reload. */
import { readFile, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createRun, defineTool, type Run } from "../src/index.js";
import { call, textOf, track, workdirWith, workspaceCopy } from "./helpers.js";

describe("lsp actions over the sample workspace", () => {
  let run: Run;
  let remove: () => Promise<void>;
  beforeAll(async () => {
    const copy = await workspaceCopy();
    remove = copy.remove;
    run = await createRun({ workdir: copy.dir, approver: "always", trust: "workspace" });
  });
  afterAll(async () => {
    await run.dispose();
    await remove();
  });
  const lsp = async (args: Record<string, unknown>) =>
    call(await run.link({ surface: "readonly" }), "lsp", args);

  it("a file changed outside runbound is read again, even with its size and modification time put back", async () => {
    const file = path.join(run.workdir, "ts/src/main.ts");
    const args = { action: "definition", file: "ts/src/main.ts", line: 4, symbol: "add" };
    // A whole second, so that it can be put back exactly; then past the tick within which a change could leave the
    // same stat, so that the read below is kept.
    const SECOND = 1_700_000_000;
    await utimes(file, SECOND, SECOND);
    await new Promise((r) => setTimeout(r, 200));
    expect(textOf(await lsp(args))).toMatch(/^ts\/src\/stock\.ts:11 {2}add\(/);
    const original = await readFile(file, "utf8");
    const lines = original.split("\n");
    [lines[3], lines[4]] = [lines[4]!, lines[3]!];
    try {
      // Lines 4 and 5 swapped: the same size; the modification time put back as a tool that keeps it would.
      await writeFile(file, lines.join("\n"));
      await utimes(file, SECOND, SECOND);
      expect((await stat(file)).mtimeMs).toBe(SECOND * 1000);
      expect(textOf(await lsp(args))).toMatch(
        /^`symbol` "add" is not on line 4, which reads: `stock\.remove\("A1"\);`\..* line 5/s,
      );
    } finally {
      await writeFile(file, original);
    }
  });

  it("type_definition: from a variable to its class", async () => {
    const result = await lsp({ action: "type_definition", file: "ts/src/main.ts", line: 3, symbol: "stock" });
    expect(textOf(result)).toMatch(/^ts\/src\/stock\.ts:7 {2}export class Stock \{$/);
  });

  it("implementation: gopls finds the concrete method", async () => {
    const result = await lsp({ action: "implementation", file: "go/main.go", line: 7, symbol: "stock.Add" });
    expect(result.isError, textOf(result)).toBeFalsy();
  });

  it("symbols by query, with file choosing the server (started if need be)", async () => {
    const result = await lsp({ action: "symbols", query: "ValueCents", file: "go/main.go" });
    expect(textOf(result)).toMatch(
      /^\d+ symbols?, searched by gopls @ go:\ngo\/stock\.go:33 {2}Stock\.ValueCents \(method in example\.com\/inventory\)/,
    );
    // Its range, start and end, like every other location.
    const [row] = (
      result.structuredContent as {
        symbols: { line: number; column?: number; end?: { line: number; column: number } }[];
      }
    ).symbols;
    expect(row?.column).toBeGreaterThan(0);
    expect(row?.end).toBeDefined();
    expect(row!.end!.line > row!.line || row!.end!.column > row!.column!).toBe(true);
  });

  it("symbols by query alone: the running servers search, and the answer names those that did not", async () => {
    // tsgo and gopls run by now (the tests above); pyright, clangd and rust-analyzer could serve but do not run.
    const result = await lsp({ action: "symbols", query: "Stock" });
    const text = textOf(result);
    expect(text).toMatch(/^\d+ symbols, searched by (tsgo @ ts, gopls @ go|gopls @ go, tsgo @ ts):\n/);
    expect(text).toMatch(/^ts\/src\/stock\.ts:7 {2}Stock \(class\b/m);
    expect(text).toMatch(/^go\/stock\.go:11 {2}Stock \(struct\b/m);
    expect(text).toMatch(
      /\nNot searched: pyright \(python\), clangd \(c\), rust-analyzer \(rust\) are not running — pass `file` \(a file of that language\) with `query` to search there too\.\nIncomplete: not every server of the project searched \(see Not searched above\)\.$/,
    );
    expect(result.structuredContent).toMatchObject({
      searched: expect.arrayContaining(["tsgo @ ts", "gopls @ go"]),
      not_searched: [expect.stringMatching(/^pyright \(python\), clangd/)],
    });
  });

  // After the workspace search above, which counts pyright among the servers not running.
  it("a definition from inside a module path or an __all__ entry: the servers navigate them", async () => {
    const go = textOf(await lsp({ action: "definition", file: "go/main.go", line: 3, symbol: "fmt" }));
    expect(go).toMatch(/fmt\/[a-z_]+\.go:\d+/);
    expect(go).not.toMatch(/only inside a string/);
    const ts = textOf(
      await lsp({ action: "definition", file: "ts/src/main.ts", line: 1, symbol: "./stock.js" }),
    );
    expect(ts).toMatch(/ts\/src\/stock\.ts:1\b/);
    const py = textOf(
      await lsp({ action: "definition", file: "python/inventory/__init__.py", line: 3, symbol: "Stock" }),
    );
    // pyright (1.1.414) has no definition for an __all__ entry: its own answer, not runbound's refusal.
    expect(py).toBe(
      '("Stock" is inside a string the server navigates (a module path or an `__all__` entry))\nNo definition found (pyright answered with no locations).',
    );
  });

  it('diagnostics "*" runs each language\'s checker and reports per file first', async () => {
    await call(await run.link({ surface: "full" }), "edit", {
      path: "python/inventory/stock.py",
      old_string: "return sum(",
      new_string: "return summ(",
    });
    const result = await lsp({ action: "diagnostics", file: "*" });
    const text = textOf(result);
    expect(text).toMatch(/^Project-wide check: \d+ findings? in \d+ files? \(some checks did not run/);
    expect(text).toContain("  pyright @ python: pyright --outputjson → 1 finding");
    // The command line names the project relative to the workdir, never the machine's folders.
    expect(text).toContain(
      "  tsgo @ ts: tsc --noEmit --incremental false --composite false --tsBuildInfoFile null --generateTrace null --pretty false -p ts → 0 findings",
    );
    expect(text).not.toContain(run.workdir);
    expect(text).toContain("  gopls @ go: go vet ./... → 0 findings");
    expect(text).toContain(
      "  clangd @ c: no checker (clangd has no project-wide checker; ask for diagnostics per file)",
    );
    expect(text).toContain(
      '\n  python/inventory/stock.py:27 error: "summ" is not defined [reportUndefinedVariable]',
    );
    expect(result.structuredContent).toMatchObject({ freshness: "stale", total: 1 });
  });

  it("a harness's own write tool that declares `writes` gets diagnostics on write too", async () => {
    run.registerTool(
      defineTool({
        name: "harness_write",
        title: "The harness's own write",
        tier: "write",
        needs: [],
        parallelSafe: false,
        writes: true,
        description: "writes a file its own way",
        input: { path: z.string(), content: z.string() },
        output: { path: z.string() },
        run: async (args, ctx) => {
          await writeFile(path.join(ctx.workdir, args.path), args.content);
          return { text: `wrote ${args.path}`, structured: { path: args.path }, written: [args.path] };
        },
      }),
    );
    const original = await readFile(path.join(run.workdir, "go/main.go"), "utf8");
    const result = await call(await run.link({ surface: "full" }), "harness_write", {
      path: "go/main.go",
      content: original.replace("NewStock()", "NewStok()"),
    });
    expect(textOf(result)).toMatch(
      /^wrote go\/main\.go\n\nDiagnostics after this write: 1 new one:\n {2}go\/main\.go:6 error: undefined: NewStok/,
    );
    expect(result.structuredContent).toMatchObject({
      path: "go/main.go",
      diagnostics: { files: [{ path: "go/main.go", freshness: "fresh" }] },
    });
  });

  it("reload restarts the server of that file's root, which then answers again", async () => {
    await lsp({ action: "hover", file: "ts/src/main.ts", line: 4, symbol: "stock.add" });
    const before = textOf(await lsp({ action: "status" })).match(/tsgo @ ts: ready, pid (\d+)/)?.[1];
    expect(before).toBeDefined();
    const reloaded = await lsp({ action: "reload", file: "ts/src/main.ts" });
    expect(textOf(reloaded)).toMatch(/^Reloaded: tsgo @ ts \(ready\)$/);
    const after = textOf(await lsp({ action: "status" })).match(/tsgo @ ts: ready, pid (\d+)/)?.[1];
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    expect(
      textOf(await lsp({ action: "hover", file: "ts/src/main.ts", line: 4, symbol: "stock.add" })),
    ).toMatch(/Stock\.add/);
  });

  it("answers from the files as they are now: an edited snippet, a same-size edit with its modification time put back", async () => {
    const definition = () =>
      lsp({ action: "definition", file: "ts/src/main.ts", line: 4, symbol: "stock.add" });
    expect(textOf(await definition())).toMatch(
      /ts\/src\/stock\.ts:11 {2}add\(item: Item, count = 1\): void \{$/m,
    );
    // The definition's file changes (another size): its snippet is read again.
    const stockTs = path.join(run.workdir, "ts/src/stock.ts");
    await writeFile(
      stockTs,
      (await readFile(stockTs, "utf8")).replace(
        "add(item: Item, count = 1): void {",
        "add(item: Item, count = 1): void { // adds",
      ),
    );
    expect(textOf(await definition())).toMatch(
      /ts\/src\/stock\.ts:11 {2}add\(item: Item, count = 1\): void \{ \/\/ adds$/m,
    );
    // The asked file changes without changing its size or modification time: the symbol is found in the new text.
    const mainTs = path.join(run.workdir, "ts/src/main.ts");
    const before = await stat(mainTs);
    await writeFile(mainTs, (await readFile(mainTs, "utf8")).replace('"lamp"', '"lump"'));
    await utimes(mainTs, before.atime, before.mtime);
    expect(textOf(await lsp({ action: "hover", file: "ts/src/main.ts", line: 4, symbol: "lump" }))).toMatch(
      /^`symbol` "lump" is only inside a string or comment on line 4, which reads: `stock\.add\(\{ sku: "A1", name: "lump", priceCents: 2500 \}, 3\);`\. It does not occur in this file's code\.$/,
    );
  });
});

describe("references from a server started moments ago", () => {
  it("are asked once of tsgo, and confirmed by asking again only where the catalog says (pyright)", async () => {
    const copy = await workspaceCopy();
    const run = await createRun({ workdir: copy.dir, approver: "always" });
    try {
      const client = await run.link({ surface: "readonly" });
      const asked = async (file: string, line: number, symbol: string) => {
        const { client: server } = await run
          .resource("lsp")!
          .supervisor.clientFor(path.join(copy.dir, file), file);
        let count = 0;
        const request = server.request.bind(server) as (...args: unknown[]) => Promise<unknown>;
        server.request = ((...args: unknown[]) => {
          if (args[0] === "textDocument/references") count++;
          return request(...args);
        }) as typeof server.request;
        const result = await call(client, "lsp", { action: "references", file, line, symbol });
        expect(result.isError, textOf(result)).toBeFalsy();
        return count;
      };
      // tsgo loads its project before it answers: one request (a confirmation cost 300 ms per call in its first 15 s).
      expect(await asked("ts/src/main.ts", 4, "stock.add")).toBe(1);
      // pyright answers from a half-analysed workspace at first, without reporting progress: asked until two agree.
      expect(await asked("python/inventory/__init__.py", 1, "Stock")).toBeGreaterThanOrEqual(2);
    } finally {
      await run.dispose();
      await copy.remove();
    }
  });
});

describe("references beyond the 50 shown", () => {
  it("are counted per file on one line, so the answer gives the whole scope (tsgo)", async () => {
    const calls = (n: number) =>
      Array.from({ length: n }, (_, i) => `export const v${i} = f(${i});`).join("\n");
    const workdir = await workdirWith({
      "package.json": '{ "name": "many", "type": "module" }\n',
      "tsconfig.json":
        '{ "compilerOptions": { "strict": true, "module": "nodenext", "noEmit": true }, "include": ["src"] }\n',
      "src/lib.ts": "export function f(n: number): number {\n  return n;\n}\n",
      "src/a.ts": `import { f } from "./lib.js";\n${calls(45)}\n`,
      "src/b.ts": `import { f } from "./lib.js";\n${calls(12)}\n`,
      "src/c.ts": `import { f } from "./lib.js";\n${calls(3)}\n`,
    });
    const run = track(await createRun({ workdir, approver: "always" }));
    const result = await call(await run.link({ surface: "readonly" }), "lsp", {
      action: "references",
      file: "src/lib.ts",
      line: 1,
      symbol: "f",
    });
    const text = textOf(result);
    // 1 declaration + 3 imports + 60 calls; 50 shown with snippets, the other 14 counted per file.
    expect(text).toMatch(/^64 references in 4 files, showing 50 of 64:\n/);
    expect(text).toMatch(
      /\nNot shown: 14 more in 2 files: src\/b\.ts \(10\), src\/c\.ts \(4\)\.\nIncomplete: showing 50 of 64 locations \(the answer's limit\)\.$/,
    );
    expect(result.structuredContent).toMatchObject({
      complete: false,
      incomplete_because: ["showing 50 of 64 locations (the answer's limit)"],
    });
    expect(result.structuredContent).toMatchObject({ total: 64 });
  });
});

describe('diagnostics "*" with a nested root', () => {
  it("lists each finding once, under the root that owns its file (requests' docs/ beside its pyproject.toml)", async () => {
    const workdir = await workdirWith({
      "pyproject.toml": '[project]\nname = "shop"\nversion = "0.1.0"\n',
      "shop/__init__.py": "def total():\n    return summ([1, 2])\n",
      "docs/requirements.txt": "sphinx\n",
      "docs/conf.py": "project = nme\n",
    });
    const run = track(await createRun({ workdir, approver: "always" }));
    const text = textOf(
      await call(await run.link({ surface: "readonly" }), "lsp", { action: "diagnostics", file: "*" }),
    );
    expect(text).toMatch(/^Project-wide check: 2 findings in 2 files\.\n/);
    expect(text).toContain("  pyright @ .: pyright --outputjson → 1 finding\n");
    expect(text).toContain("  pyright @ docs: pyright --outputjson → 1 finding\n");
    expect(text).toMatch(
      /\n {2}docs\/conf\.py:1 error: "nme" is not defined .*\n {2}shop\/__init__\.py:2 error: "summ"/,
    );
    expect(text.match(/"summ" is not defined/g)).toHaveLength(1);
  });
});
