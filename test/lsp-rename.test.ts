import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type Run } from "../src/index.js";
import type { ServerSpec } from "../src/lsp/catalog.js";
import { identifierProblem } from "../src/lsp/rename/identifiers.js";
import { call, textOf, track, treeOf, workdirWith, workspaceCopy } from "./helpers.js";

function without(files: Record<string, string>, name: string): Record<string, string> {
  const { [name]: _, ...rest } = files;
  return rest;
}

describe("lsp_rename against real servers", () => {
  let run: Run;
  let dir: string;
  let remove: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, remove } = await workspaceCopy());
    run = await createRun({ workdir: dir, approver: "always" });
  });
  afterAll(async () => {
    await run.dispose();
    await remove();
  });
  const rename = async (args: Record<string, unknown>) =>
    call(await run.link({ surface: "full" }), "lsp_rename", args);

  it("TypeScript 7: renames the method and its call in another file, then reports diagnostics", async () => {
    const result = await rename({ file: "ts/src/main.ts", line: 4, symbol: "stock.add", new_name: "insert" });
    expect(textOf(result)).toBe(
      "Renamed `add` to `insert`: 2 edits in 2 files.\n  ts/src/main.ts (1 edit)\n  ts/src/stock.ts (1 edit)\n\nDiagnostics after this write: nothing new.",
    );
    expect(result.structuredContent).toMatchObject({
      old_name: "add",
      new_name: "insert",
      renamed: [],
      created: [],
      deleted: [],
    });
    expect(await readFile(path.join(dir, "ts/src/stock.ts"), "utf8")).toContain(
      "  insert(item: Item, count = 1): void {",
    );
    expect(await readFile(path.join(dir, "ts/src/main.ts"), "utf8")).toContain('stock.insert({ sku: "A1"');
  });

  it("a rename that breaks the build is applied, and the new errors are reported at once", async () => {
    const result = await rename({
      file: "ts/src/stock.ts",
      line: 11,
      symbol: "insert",
      new_name: "valueCents",
    });
    expect(textOf(result)).toMatch(
      /Diagnostics after this write: 2 new ones:\n {2}ts\/src\/stock\.ts:11, 22 error: Duplicate function implementation\. \[ts 2393\]$/,
    );
  });

  it("a new name that is no identifier of the language, or is reserved there, is refused before the server is asked", async () => {
    // tsgo applied a rename to "1bad" and left the code broken; gopls refuses it itself, pyright accepts "class".
    const before = await treeOf(dir);
    const refusals: [Record<string, unknown>, string][] = [
      [
        { file: "ts/src/main.ts", line: 3, symbol: "stock", new_name: "1bad" },
        '`new_name` "1bad" is not a TypeScript identifier (it must be a letter, `_` or `$`, then letters, digits, `_` or `$`); nothing was changed.',
      ],
      [
        { file: "go/stock.go", line: 38, symbol: "total", new_name: "1bad" },
        '`new_name` "1bad" is not a Go identifier (it must be a letter or `_`, then letters, digits or `_`); nothing was changed.',
      ],
      [
        { file: "go/stock.go", line: 38, symbol: "total", new_name: "func" },
        '`new_name` "func" is a reserved word in Go; nothing was changed.',
      ],
      [
        { file: "python/inventory/stock.py", line: 17, symbol: "add", new_name: "class" },
        '`new_name` "class" is a reserved word in Python; nothing was changed.',
      ],
      // A joiner the editor does not show (JavaScript's grammar allows it): a second name that looks like the first.
      [
        { file: "ts/src/main.ts", line: 3, symbol: "stock", new_name: "st\u200Dock2" },
        '`new_name` "st\\u{200D}ock2" contains an invisible format character (U+200D at character 3); type the name without it; nothing was changed.',
      ],
      [
        { file: "ts/src/main.ts", line: 3, symbol: "stock", new_name: "a".repeat(10_000_000) },
        `\`new_name\` "${"a".repeat(60)}…" is 10,000,000 characters long; a name may have at most 255; nothing was changed.`,
      ],
    ];
    for (const [args, message] of refusals) expect(textOf(await rename(args))).toBe(message);
    expect(await treeOf(dir)).toEqual(before);
  });

  it("pyright: a built-in cannot be renamed (prepareRename says no)", async () => {
    const result = await rename({
      file: "python/inventory/stock.py",
      line: 34,
      symbol: "print",
      new_name: "echo",
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^Pyright (says `print` at python\/inventory\/stock\.py:34 cannot be renamed|refuses to rename `print`)/,
    );
  });

  it("is not on plan or readonly surfaces", async () => {
    expect(run.tools("plan")).not.toContain("lsp_rename");
    const result = await call(await run.link({ surface: "plan" }), "lsp_rename", {
      file: "a.ts",
      line: 1,
      symbol: "a",
      new_name: "b",
    });
    expect(textOf(result)).toMatch(/^lsp_rename is not available on the plan surface/);
  });
});

describe("lsp_rename applies a WorkspaceEdit all or nothing (scripted server)", () => {
  const FAKE = path.resolve(import.meta.dirname, "fixtures/fake-lsp.mjs");
  async function fake(mode: string) {
    const files = { "fake.toml": "", "a.fake": "old name\n", "b.fake": "bee\n", "d.fake": "dee\n" };
    const workdir = await workdirWith(files);
    const spec: ServerSpec = {
      id: "fake",
      name: "Fake",
      languages: { ".fake": "fake" },
      rootMarkers: ["fake.toml"],
      candidates: [{ name: "fake-lsp", args: [FAKE, `--mode=${mode}`], embedded: () => process.execPath }],
      install: "a test fixture",
    };
    const run = track(
      await createRun({
        workdir,
        approver: "always",
        lsp: { servers: [spec], timeouts: { diagnosticsMs: 500 } },
      }),
    );
    const client = await run.link({ surface: "full" });
    return {
      workdir,
      files,
      rename: () => call(client, "lsp_rename", { file: "a.fake", line: 1, symbol: "old", new_name: "new" }),
    };
  }

  it("create, edit, rename and delete land together", async () => {
    const { rename, workdir } = await fake("rename-files");
    const result = await rename();
    expect(textOf(result)).toMatch(
      /^Renamed `old` to `new`: 1 edit in 1 file\.\n {2}a\.fake \(1 edit\)\n {2}renamed b\.fake → c\.fake\n {2}created new\.fake\n {2}deleted d\.fake/,
    );
    expect(await treeOf(workdir)).toEqual({
      "fake.toml": "",
      "a.fake": "new name\n",
      "c.fake": "bee\n",
      "new.fake": "",
    });
  });

  it("an edit for a version the server was never sent is refused whole", async () => {
    const { rename, workdir, files } = await fake("rename-stale");
    expect(textOf(await rename())).toBe(
      "lsp_rename: a.fake changed since the server read it; nothing was changed. Try again.",
    );
    expect(await treeOf(workdir)).toEqual(files);
  });

  it("an edit that reaches outside the workdir is refused whole", async () => {
    const { rename, workdir, files } = await fake("rename-outside");
    expect(textOf(await rename())).toBe(
      "lsp_rename: the server's edit would change /tmp/outside-the-workdir.fake, which is outside the workdir; nothing was changed.",
    );
    expect(await treeOf(workdir)).toEqual(files);
  });

  it("a snippet edit (LSP 3.18, never asked for) is refused whole", async () => {
    const { rename, workdir, files } = await fake("rename-snippet");
    expect(textOf(await rename())).toBe(
      "lsp_rename: the server sent a snippet edit for a.fake, which runbound does not ask for and cannot apply as text; nothing was changed.",
    );
    expect(await treeOf(workdir)).toEqual(files);
  });
});

describe("identifierProblem: what a rename may name a symbol", () => {
  it("takes each language's identifiers, non-ASCII ones included, and refuses the rest with the rule", () => {
    for (const [name, language] of [
      ["ціна", "python"],
      ["_private", "python"],
      ["$el", "javascript"],
      ["delete", "typescript"],
      ["ναι", "go"],
      ["r#type", "rust"],
      ["count_2", "c"],
      ["$value", "dart"],
      ["anything-goes", "haskell"],
    ] as const) {
      expect(identifierProblem(name, language), `${name} in ${language}`).toBeUndefined();
    }
    expect(identifierProblem("x-y", "c")).toBe(
      "is not a C identifier (it must be a letter or `_`, then letters, digits or `_`)",
    );
    expect(identifierProblem("new", "cpp")).toBe("is a reserved word in C++");
    expect(identifierProblem("fn", "rust")).toBe("is a reserved word in Rust");
    expect(identifierProblem("two words", "typescript")).toMatch(/^is not a TypeScript identifier/);
    expect(identifierProblem("", "python")).toMatch(/^is not a Python identifier/);
  });
});

describe("lsp_rename with new_path: a file moved with the imports its servers update", () => {
  const TS = {
    "tsconfig.json": '{ "compilerOptions": { "strict": true, "module": "nodenext", "target": "es2022" } }\n',
    "package.json": '{ "type": "module" }\n',
    "src/consts.ts": "export const RATE = 2;\n",
    "src/util.ts":
      'import { RATE } from "./consts.js";\nexport function helper(n: number): number {\n  return n * RATE;\n}\n',
    "src/main.ts": 'import { helper } from "./util.js";\nconsole.log(helper(1));\n',
    "src/deep/other.ts": 'import { helper } from "../util.js";\nexport const two = helper(2);\n',
  };

  it("tsgo: every import of the file and the file's own imports, then diagnostics on write", async () => {
    const workdir = await workdirWith(TS);
    const run = track(await createRun({ workdir, approver: "always" }));
    const result = await call(await run.link({ surface: "full" }), "lsp_rename", {
      file: "src/util.ts",
      new_path: "src/lib/util.ts",
    });
    expect(textOf(result)).toBe(
      [
        "Moved src/util.ts → src/lib/util.ts; tsgo updated what refers to it: 3 edits.",
        "  src/deep/other.ts (1 edit)",
        "  src/lib/util.ts (1 edit)",
        "  src/main.ts (1 edit)",
        "",
        "Diagnostics after this write: nothing new.",
      ].join("\n"),
    );
    expect(result.structuredContent).toMatchObject({
      moved: { from: "src/util.ts", to: "src/lib/util.ts" },
      servers: [{ server: "tsgo", edits: 3 }],
      renamed: [{ from: "src/util.ts", to: "src/lib/util.ts" }],
    });
    const tree = await treeOf(workdir);
    expect(tree["src/util.ts"]).toBeUndefined();
    expect(tree["src/lib/util.ts"]).toMatch(/^import \{ RATE \} from "\.\.\/consts\.js";\n/);
    expect(tree["src/main.ts"]).toMatch(/^import \{ helper \} from "\.\/lib\/util\.js";\n/);
    expect(tree["src/deep/other.ts"]).toMatch(/^import \{ helper \} from "\.\.\/lib\/util\.js";\n/);
  });

  it("a move that touches many files lists 50 of them and counts the rest", async () => {
    const files: Record<string, string> = { ...TS };
    for (let i = 0; i < 60; i++)
      files[`src/use${String(i).padStart(2, "0")}.ts`] =
        'import { helper } from "./util.js";\nexport const v = helper(1);\n';
    const workdir = await workdirWith(files);
    const run = track(await createRun({ workdir, approver: "always" }));
    const result = await call(await run.link({ surface: "full" }), "lsp_rename", {
      file: "src/util.ts",
      new_path: "src/lib/util.ts",
    });
    const text = textOf(result);
    expect(text).toMatch(
      /^Moved src\/util\.ts → src\/lib\/util\.ts; tsgo updated what refers to it: 63 edits\.\n/,
    );
    expect(text.match(/^ {2}src\/\S+ \(1 edit\)$/gm)).toHaveLength(50);
    expect(text).toContain("\n  … and 13 more files (showing 50 of 63)");
    expect((result.structuredContent as { files: unknown[] }).files).toHaveLength(63);
  });

  it("pyright and gopls offer no edits on a move: the file moves, and the answer says its imports were not updated", async () => {
    const workdir = await workdirWith({
      "pyproject.toml": '[project]\nname = "shop"\nversion = "0.1.0"\n',
      "shop/util.py": "def helper(n):\n    return n * 2\n",
      "shop/main.py": "from shop.util import helper\nprint(helper(1))\n",
    });
    const run = track(await createRun({ workdir, approver: "always" }));
    const result = await call(await run.link({ surface: "full" }), "lsp_rename", {
      file: "shop/util.py",
      new_path: "shop/helpers.py",
    });
    expect(textOf(result)).toMatch(
      /^Moved shop\/util\.py → shop\/helpers\.py; pyright does not update imports on a move \(it offers no willRenameFiles edits for shop\/util\.py\): check what imported it \(`lsp diagnostics` with file "\*" lists imports that broke\)\.\n/,
    );
    const tree = await treeOf(workdir);
    expect(Object.keys(tree).sort()).toEqual(["pyproject.toml", "shop/helpers.py", "shop/main.py"]);
    expect(tree["shop/main.py"]).toBe("from shop.util import helper\nprint(helper(1))\n");

    const go = await workdirWith({
      "go.mod": "module example.com/shop\n\ngo 1.22\n",
      "main.go": "package main\n\nfunc main() { helper() }\n",
      "util.go": "package main\n\nfunc helper() {}\n",
    });
    const goRun = track(await createRun({ workdir: go, approver: "always" }));
    const moved = await call(await goRun.link({ surface: "full" }), "lsp_rename", {
      file: "util.go",
      new_path: "helpers.go",
    });
    expect(textOf(moved)).toMatch(/^Moved util\.go → helpers\.go; gopls does not update imports on a move/);
    expect(Object.keys(await treeOf(go)).sort()).toEqual(["go.mod", "helpers.go", "main.go"]);
  });

  it("rust-analyzer: the module declaration and the paths that name it", async () => {
    const workdir = await workdirWith({
      "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2021"\n',
      "src/main.rs": "mod shapes;\n\nfn main() {\n    shapes::hello();\n}\n",
      "src/shapes.rs": "pub fn hello() {}\n",
    });
    const run = track(await createRun({ workdir, approver: "always" }));
    const result = await call(await run.link({ surface: "full" }), "lsp_rename", {
      file: "src/shapes.rs",
      new_path: "src/geometry.rs",
    });
    expect(textOf(result)).toMatch(
      /^Moved src\/shapes\.rs → src\/geometry\.rs; rust-analyzer updated what refers to it: \d+ edits?\.\n {2}src\/main\.rs \(\d+ edits?\)\n/,
    );
    const tree = await treeOf(workdir);
    expect(tree["src/main.rs"]).toMatch(/^mod geometry;\n/);
    expect(tree["src/geometry.rs"]).toBe("pub fn hello() {}\n");
  });

  it("a symbol by name alone: renamed when it occurs once in the file's code, said in the answer", async () => {
    const workdir = await workdirWith(TS);
    const run = track(await createRun({ workdir, approver: "always" }));
    const result = await call(await run.link({ surface: "full" }), "lsp_rename", {
      file: "src/util.ts",
      symbol: "helper",
      new_name: "scaled",
    });
    expect(textOf(result)).toMatch(
      /^Renamed `helper` to `scaled` \(no `line` given: line 2 is the one line where "helper" occurs in code\): 5 edits in 3 files\.\n/,
    );
    expect((await treeOf(workdir))["src/main.ts"]).toBe(
      'import { scaled } from "./util.js";\nconsole.log(scaled(1));\n',
    );
  });

  it("bad arguments change nothing, and a person is never asked about them", async () => {
    const workdir = await workdirWith({ ...TS, "src/lib/taken.ts": "export {};\n" });
    let asked = 0;
    const run = track(
      await createRun({
        workdir,
        approver: async () => {
          asked++;
          return { allow: true };
        },
      }),
    );
    const client = await run.link({ surface: "full" });
    const move = (args: Record<string, unknown>) =>
      call(client, "lsp_rename", { file: "src/util.ts", ...args });
    const before = await treeOf(workdir);
    expect(textOf(await move({ new_path: "src/lib/taken.ts" }))).toBe(
      "`new_path` src/lib/taken.ts exists; lsp_rename does not overwrite. Nothing was moved.",
    );
    expect(textOf(await move({ new_path: "../outside.ts" }))).toMatch(/^`new_path` .*outside the workdir/);
    expect(textOf(await move({ new_path: "src/util.ts" }))).toBe(
      "`new_path` is where src/util.ts already is; nothing to move.",
    );
    expect(textOf(await move({ file: "src/deep", new_path: "src/deeper" }))).toBe(
      "`file` src/deep is a folder; lsp_rename moves one file at a time. Nothing was moved.",
    );
    const asked0 = asked;
    expect(textOf(await move({ new_path: "src/x.ts", symbol: "helper" }))).toBe(
      "`new_path` moves the file; `symbol` is for renaming a symbol. Give one or the other.",
    );
    expect(textOf(await move({ symbol: "helper" }))).toBe(
      "lsp_rename needs `symbol` and `new_name` (rename a symbol) or `new_path` (move the file); missing: `new_name`.",
    );
    expect(asked).toBe(asked0);
    expect(await treeOf(workdir)).toEqual(before);
  });

  it("a scripted server: its edit lands with the move and didRenameFiles follows; an edit outside the workdir or no answer moves nothing", async () => {
    const moved = await fakeMove("normal");
    expect(textOf(await moved.move())).toMatch(
      /^Moved a\.fake → sub\/a\.fake; fake updated what refers to it: 1 edit\.\n {2}b\.fake \(1 edit\)/,
    );
    expect(await treeOf(moved.workdir)).toEqual({
      ...without(moved.files, "a.fake"),
      "sub/a.fake": "old name\n",
      "b.fake": "moved\n",
    });
    const log = await readFile(moved.log, "utf8");
    expect(log).toMatch(
      /"method":"willRenameFiles".*\n(.*\n)*.*"method":"didRenameFiles","files":\[\{"oldUri":"file:\/\/[^"]+\/a\.fake","newUri":"file:\/\/[^"]+\/sub\/a\.fake"\}\]/,
    );
    const outside = await fakeMove("move-outside");
    expect(textOf(await outside.move())).toBe(
      "lsp_rename: the server's edit would change /tmp/outside-the-workdir.fake, which is outside the workdir; nothing was changed.",
    );
    expect(await treeOf(outside.workdir)).toEqual(outside.files);
    const hang = await fakeMove("move-hang");
    expect(textOf(await hang.move())).toBe(
      "fake did not answer workspace/willRenameFiles within 1000 ms; nothing was changed (the request was cancelled on the server). Try again, or `lsp reload` with this file.",
    );
    expect(await treeOf(hang.workdir)).toEqual(hang.files);
  });

  it("a server's glob that would backtrack for hours as a regular expression is matched in a moment (a long file name moves)", async () => {
    const long = `${"a".repeat(40)}.fake`;
    const moved = await fakeMove("hostile-glob", long);
    expect(textOf(await moved.move())).toMatch(
      new RegExp(
        `^Moved ${long.replace(".", "\\.")} → sub/${long.replace(".", "\\.")}; fake does not update imports on a move`,
      ),
    );
    expect(await treeOf(moved.workdir)).toEqual({
      ...without(moved.files, long),
      [`sub/${long}`]: "old name\n",
    });
  });

  async function fakeMove(mode: string, name = "a.fake") {
    const files = { "fake.toml": "", [name]: "old name\n", "b.fake": "bee\n" };
    const workdir = await workdirWith(files);
    // Beside the workdir, whose tree the test compares: in a folder of its own, removed after the test, which the
    // server's sandbox is given to write (sandbox.writable).
    const logDir = await workdirWith();
    const log = path.join(logDir, "fake-lsp.log");
    const spec: ServerSpec = {
      id: "fake",
      name: "Fake",
      languages: { ".fake": "fake" },
      rootMarkers: ["fake.toml"],
      candidates: [
        {
          name: "fake-lsp",
          args: [
            path.resolve(import.meta.dirname, "fixtures/fake-lsp.mjs"),
            `--mode=${mode}`,
            `--log=${log}`,
          ],
          embedded: () => process.execPath,
        },
      ],
      install: "a test fixture",
    };
    const run = track(
      await createRun({
        workdir,
        approver: "always",
        lsp: { servers: [spec], timeouts: { diagnosticsMs: 500, requestMs: 1000 } },
        sandbox: { writable: [logDir] },
      }),
    );
    const client = await run.link({ surface: "full" });
    return {
      workdir,
      files,
      log,
      move: () => call(client, "lsp_rename", { file: name, new_path: `sub/${name}` }),
    };
  }
});
