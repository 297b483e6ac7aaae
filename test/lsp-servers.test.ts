/**
 * lsp against real language servers: pyright, TypeScript 7 (tsc --lsp), typescript-language-server + TS 6, gopls,
 * clangd. Each server gets one run over a copy of examples/workspace (cold start once), then the same questions.
 */
import { cp } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import type { TypeScriptServer } from "../src/lsp/catalog.js";
import type { RunLink } from "../src/run-link.js";
import { call, textOf, workdirWith, workspaceCopy } from "./helpers.js";

const WORKSPACE = path.resolve(import.meta.dirname, "../examples/workspace");

interface Case {
  server: string;
  typescript?: TypeScriptServer;
  /** A call site: file, line, symbol, and where its definition is. */
  use: { file: string; line: number; symbol: string };
  definition: RegExp;
  references: number;
  hover: RegExp;
  outline: { file: string; has: string[] };
  /** An edit that breaks the file, the error it causes, and text to insert above it (moves it down). */
  breakIt: { file: string; from: string; to: string; error: RegExp; above: string; insertAt: string };
}

const CASES: Case[] = [
  {
    server: "pyright",
    use: { file: "python/inventory/__init__.py", line: 1, symbol: "Stock" },
    definition: /python\/inventory\/stock\.py:13 {2}class Stock:/,
    // The import, the __all__ entry, the class, and the use in __main__.
    references: 4,
    hover: /class Stock/,
    outline: {
      file: "python/inventory/stock.py",
      has: ["6  Item (class)", "17  Stock.add (method)", "26  Stock.value_cents (method)"],
    },
    breakIt: {
      file: "python/inventory/stock.py",
      from: "return sum(",
      to: "return summ(",
      error: /stock\.py:\d+ error: "summ" is not defined/,
      above: "\n\n",
      insertAt: '"""Stock levels for a small shop."""\n',
    },
  },
  ...(["tsgo", "typescript-language-server"] as const).map((typescript) => ({
    server: typescript,
    typescript,
    use: { file: "ts/src/main.ts", line: 4, symbol: "stock.add" },
    definition: /ts\/src\/stock\.ts:11 {2}add\(item: Item, count = 1\): void \{/,
    references: 2,
    hover: /Stock\.add\(item: Item, count\?: number\): void/,
    outline: {
      file: "ts/src/stock.ts",
      has: ["1  Item (interface)", "7  Stock (class)", "11  Stock.add (method)"],
    },
    breakIt: {
      file: "ts/src/stock.ts",
      from: "return total;",
      to: "return totl;",
      error: /stock\.ts:\d+ error: Cannot find name 'totl'/,
      above: "// one\n// two\n",
      insertAt: "export class Stock {\n",
    },
  })),
  {
    server: "gopls",
    use: { file: "go/main.go", line: 7, symbol: "stock.Add" },
    definition: /go\/stock\.go:20 {2}func \(s \*Stock\) Add\(item Item, count int\) \{/,
    references: 2,
    hover: /func \(s \*Stock\) Add\(item Item, count int\)/,
    outline: { file: "go/stock.go", has: ["5  Item (struct)", "20  (*Stock).Add (method)"] },
    breakIt: {
      file: "go/stock.go",
      from: "return total",
      to: "return totl",
      error: /stock\.go:\d+ error: undefined: totl/,
      above: "\n// moved\n",
      insertAt: 'import "fmt"\n',
    },
  },
  {
    server: "rust-analyzer",
    use: { file: "rust/src/main.rs", line: 36, symbol: "stock.add" },
    definition: /rust\/src\/main\.rs:15 {2}fn add\(&mut self, sku: &str, item: Item, count: u64\) \{/,
    references: 2,
    hover: /fn add\(&mut self, sku: &str, item: Item, count: u64\)/,
    outline: {
      file: "rust/src/main.rs",
      has: ["3  Item (struct)", "14  impl Stock (object)", "15  impl Stock.add (method)"],
    },
    breakIt: {
      file: "rust/src/main.rs",
      from: ".sum()",
      to: ".summ()",
      error: /main\.rs:\d+ error: no method named `summ` found .* \[rustc E0599\]/,
      above: "\n// moved\n",
      insertAt: "use std::collections::HashMap;\n",
    },
  },
  {
    server: "clangd",
    use: { file: "c/stock.c", line: 35, symbol: "add" },
    definition: /c\/stock\.c:15 {2}static void add\(const char \*sku, int price_cents, int count\) \{/,
    references: 3,
    hover: /static void add\(const char \*sku, int price_cents, int count\)/,
    outline: {
      file: "c/stock.c",
      has: ["6  item (class)", "7  item.sku (field)", "15  add (function)", "34  main (function)"],
    },
    breakIt: {
      file: "c/stock.c",
      from: "return total;",
      to: "return totl;",
      error: /stock\.c:\d+ error: Use of undeclared identifier 'totl'/,
      above: "/* a */\n/* b */\n",
      insertAt: "#include <string.h>\n",
    },
  },
];

for (const c of CASES) {
  describe(`lsp with ${c.server}`, () => {
    let run: Run;
    let client: RunLink;
    let remove: () => Promise<void>;

    beforeAll(async () => {
      const copy = await workspaceCopy();
      remove = copy.remove;
      // The sample workspace is ours: trusted, so rust-analyzer runs cargo check (its type errors come from it).
      run = await createRun({
        workdir: copy.dir,
        approver: "always",
        trust: "workspace",
        lsp: c.typescript ? { typescript: c.typescript } : {},
      });
      client = await run.link({ surface: "full" });
    });
    afterAll(async () => {
      await run?.dispose();
      await remove?.();
    });

    const lsp = (args: Record<string, unknown>) => call(client, "lsp", args);

    it("definition: path:line and the line itself, across files", async () => {
      const result = await lsp({ action: "definition", ...c.use });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(textOf(result)).toMatch(c.definition);
      expect(result.structuredContent).toMatchObject({
        action: "definition",
        server: c.server,
        target: { path: c.use.file, line: c.use.line },
      });
    });

    it("references: every use, grouped by file", async () => {
      const result = await lsp({ action: "references", ...c.use });
      expect(textOf(result)).toMatch(new RegExp(`^${c.references} references in \\d+ files?:\n`));
      expect(result.structuredContent).toMatchObject({ total: c.references });
    });

    it("hover: the signature", async () => {
      expect(textOf(await lsp({ action: "hover", ...c.use }))).toMatch(c.hover);
    });

    it("symbols of a file: nested names at their name's line", async () => {
      const text = textOf(await lsp({ action: "symbols", file: c.outline.file }));
      for (const row of c.outline.has) expect(text).toContain(row);
    });

    it("diagnostics of a clean file are fresh and empty", async () => {
      const result = await lsp({ action: "diagnostics", file: c.breakIt.file });
      expect(textOf(result)).toMatch(/^Diagnostics \(\S+, fresh\): no errors or warnings$/);
      expect(result.structuredContent).toMatchObject({ freshness: "fresh", total: 0 });
    });

    it("diagnostics on write: a new error is reported, a moved one is not, a fix is counted as resolved", async () => {
      const broke = await call(client, "edit", {
        path: c.breakIt.file,
        old_string: c.breakIt.from,
        new_string: c.breakIt.to,
      });
      expect(textOf(broke)).toMatch(/Diagnostics after this write: (1 new one|\d new ones):/);
      expect(textOf(broke)).toMatch(c.breakIt.error);
      const moved = await call(client, "edit", {
        path: c.breakIt.file,
        old_string: c.breakIt.insertAt,
        new_string: c.breakIt.insertAt + c.breakIt.above,
      });
      expect(textOf(moved)).toContain("Diagnostics after this write: nothing new.");
      const fixed = await call(client, "edit", {
        path: c.breakIt.file,
        old_string: c.breakIt.to,
        new_string: c.breakIt.from,
      });
      expect(textOf(fixed)).toMatch(
        /Diagnostics after this write: nothing new\.\n\d+ earlier diagnostics? resolved\./,
      );
      expect(fixed.structuredContent).toMatchObject({
        diagnostics: { files: [{ path: c.breakIt.file, freshness: "fresh", new: [] }] },
      });
    });

    it("status lists the running server for its root", async () => {
      const text = textOf(await lsp({ action: "status" }));
      expect(text).toMatch(
        new RegExp(`^  ${c.server} @ ${path.dirname(c.use.file).split("/")[0]}: (ready|indexing)`, "m"),
      );
    });
  });
}

describe("lsp: what a server does not support, and code actions", () => {
  it("pyright has no implementation; clangd offers its fix for the error on that line; gopls's browse-only actions are left out", async () => {
    const workdir = await workdirWith();
    await cp(WORKSPACE, workdir, { recursive: true });
    const run = await createRun({ workdir, approver: "always" });
    try {
      const client = await run.link({ surface: "full" });
      const impl = await call(client, "lsp", {
        action: "implementation",
        file: "python/inventory/stock.py",
        line: 17,
        symbol: "add",
      });
      expect(impl.isError).toBe(true);
      expect(textOf(impl)).toBe(
        "Pyright does not support implementation (it does not advertise implementationProvider). Try another action.",
      );
      await call(client, "edit", {
        path: "c/stock.c",
        old_string: "return total;",
        new_string: "return totl;",
      });
      const actions = await call(client, "lsp", {
        action: "code_actions",
        file: "c/stock.c",
        line: 31,
        symbol: "totl",
      });
      expect(textOf(actions)).toMatch(
        /^\d+ code actions? \(1 diagnostic on that line sent\):\n- change 'totl' to 'total' \[quickfix\]/,
      );
      // gopls lists six actions on any line that only open a page for a person (assembly, docs, ...): left out,
      // counted; what remains comes fixes and refactorings first.
      const go = await call(client, "lsp", {
        action: "code_actions",
        file: "go/main.go",
        line: 7,
        symbol: "stock.Add",
      });
      const text = textOf(go);
      expect(text).toMatch(
        /\(0 diagnostics on that line sent; \d+ that only open a page for a person left out\):\n/,
      );
      expect(text).not.toMatch(/Browse|source\.assembly|source\.doc\b|gopls\.doc/);
      const kinds = (go.structuredContent as { actions: { kind?: string }[] }).actions.map(
        (a) => a.kind ?? "",
      );
      expect(kinds.findIndex((k) => k.startsWith("source"))).toBeGreaterThan(
        kinds.findLastIndex((k) => k.startsWith("refactor")),
      );
    } finally {
      await run.dispose();
    }
  });
});
