import { execFileSync, spawnSync } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { grammarById } from "../grammars/index.js";
import { runTask } from "../src/ast/processes/task.js";
import { TreeCache } from "../src/ast/processes/tree-cache.js";
import { compileQuery } from "../src/ast/query/query.js";
import { StagedEdits, type StagedFile } from "../src/ast/rewrite/staged-edits.js";
import { createRun } from "../src/index.js";
import { astGrepCli, astRun, call, textOf, track, treeOf, workdirWith } from "./helpers.js";

async function astClient(files: Record<string, string>, lsp = false) {
  const workdir = await workdirWith(files);
  const run = track(await createRun({ workdir, approver: "always", lsp }));
  const client = await run.link({ surface: "full" });
  return {
    workdir,
    run,
    grep: (args: Record<string, unknown>) => call(client, "ast_grep", args),
    edit: (args: Record<string, unknown>) => call(client, "ast_edit", args),
    resolve: (edit_id: string, action: "accept" | "discard" = "accept") =>
      call(client, "resolve", { edit_id, action }),
  };
}

const matchesOf = (result: Awaited<ReturnType<typeof call>>) =>
  (
    result.structuredContent as {
      matches?: { path: string; line: number; captures: Record<string, string> }[];
    }
  )?.matches ?? [];

describe("ast_grep semantics per language: $X one node, $$$X a sequence, $_ binds nothing, a repeated $X the same text", () => {
  const cases = [
    {
      language: "typescript",
      file: "a.ts",
      source: 'f(a, b);\nf(a);\nx = x;\nx = y;\nconst s = "f(a)"; // f(a)\n',
      one: ["f($A)", [2]],
      many: ["f($$$ARGS)", [1, 2]],
      wildcard: ["f($_, $_)", [1]],
      same: ["$X = $X", [3]],
    },
    {
      language: "python",
      file: "a.py",
      source: "f(a, b)\nf(a)\nx = x\nx = y\ns = 'f(a)'  # f(a)\n",
      one: ["f($A)", [2]],
      many: ["f($$$ARGS)", [1, 2]],
      wildcard: ["f($_, $_)", [1]],
      same: ["$X = $X", [3]],
    },
    {
      language: "dart",
      file: "a.dart",
      source: "void main() {\n  f(a, b);\n  f(a);\n  x = x;\n  x = y;\n  var s = 'f(a)'; // f(a)\n}\n",
      one: ["f($A)", [3]],
      many: ["f($$$ARGS)", [2, 3]],
      wildcard: ["f($_, $_)", [2]],
      same: ["$X = $X", [4]],
    },
    {
      language: "go",
      file: "a.go",
      source:
        'package main\n\nfunc main() {\n\tf(a, b)\n\tf(a)\n\tx = x\n\tx = y\n\ts := "f(a)" // f(a)\n}\n',
      one: ["f($A)", [5]],
      many: ["f($$$ARGS)", [4, 5]],
      wildcard: ["f($_, $_)", [4]],
      same: ["$X = $X", [6]],
    },
    {
      language: "rust",
      file: "a.rs",
      source:
        'fn main() {\n    f(a, b);\n    f(a);\n    x = x;\n    x = y;\n    let s = "f(a)"; // f(a)\n}\n',
      one: ["f($A)", [3]],
      many: ["f($$$ARGS)", [2, 3]],
      wildcard: ["f($_, $_)", [2]],
      same: ["$X = $X", [4]],
    },
  ] as const;

  for (const c of cases) {
    it(`${c.language}: $X binds one node, $$$X a sequence, $_ nothing, a repeated $X the same text`, async () => {
      const { grep } = await astClient({ [c.file]: c.source });
      for (const [pattern, lines] of [c.one, c.many, c.wildcard, c.same]) {
        const result = await grep({ pattern, path: c.file });
        expect(result.isError, `${pattern}: ${textOf(result)}`).toBeFalsy();
        expect(
          matchesOf(result).map((m) => m.line),
          `${c.language} ${pattern}`,
        ).toEqual(lines);
      }
      const many = matchesOf(await grep({ pattern: "f($$$ARGS)", path: c.file }));
      expect(many[0]?.captures).toEqual({ ARGS: "a, b" });
      const wildcard = matchesOf(await grep({ pattern: "f($_, $_)", path: c.file }));
      expect(wildcard[0]?.captures).toEqual({});
    });
  }
});

describe("a header written without its body", () => {
  it("is completed with a body metavariable, said in the answer, for each grammar that has such headers", async () => {
    const { grep } = await astClient({
      "a.py": "def f(a, b):\n    return a\n\n\nclass C:\n    x = 1\n\n\nfor i in range(3):\n    print(i)\n",
      "a.ts":
        "function f(a: number) {\n  if (a) {\n    return 1;\n  }\n  return 2;\n}\nclass K {\n  m() {}\n}\n",
      "a.rs": 'fn g(a: i32) {\n    println!("{}", a);\n}\n',
      "a.go": "package a\n\nfunc F(a int) {\n\tfor _, x := range a {\n\t\t_ = x\n\t}\n}\n",
      "a.c": "int f(int a) {\n  if (a) {\n    return 1;\n  }\n  return 0;\n}\n",
      "A.java":
        "class A {\n  int f(int a) {\n    if (a > 0) {\n      return 1;\n    }\n    return 0;\n  }\n}\n",
      "a.kt": "fun f(a: Int): Int {\n  if (a > 0) {\n    return 1\n  }\n  return 0\n}\n",
      "a.rb": "def f(a)\n  a + 1\nend\n",
    });
    const cases: [string, string, string, number][] = [
      ["def $F($$$A):", "python", "def $F($$$A): $$$_", 1],
      ["class $C:", "python", "class $C: $$$_", 5],
      ["for $X in $Y:", "python", "for $X in $Y: $$$_", 9],
      ["if ($C)", "typescript", "if ($C) { $$$_ }", 2],
      ["function $F($$$P)", "typescript", "function $F($$$P) { $$$_ }", 1],
      ["class $C", "typescript", "class $C { $$$_ }", 7],
      ["fn $F($$$P)", "rust", "fn $F($$$P) { $$$_ }", 1],
      ["for $K, $V := range $X", "go", "for $K, $V := range $X { $$$_ }", 4],
      ["if ($C)", "c", "if ($C) { $$$_ }", 2],
      ["if ($C)", "java", "if ($C) { $$$_ }", 3],
      ["if ($C)", "kotlin", "if ($C) { $$$_ }", 2],
      ["def $F($$$A)", "ruby", "def $F($$$A) ⏎ $$$_ ⏎ end", 1],
    ];
    for (const [pattern, language, read, line] of cases) {
      const result = await grep({ pattern, language });
      expect(result.isError, `${language} ${pattern}: ${textOf(result)}`).toBeFalsy();
      expect(textOf(result), `${language} ${pattern}`).toContain(
        `, read as \`${read}\` (its body left to match anything)`,
      );
      expect(
        matchesOf(result).map((m) => m.line),
        `${language} ${pattern}`,
      ).toEqual([line]);
    }
    // Go's bodiless `func` is a declaration of its own, matched as such: nothing to complete.
    const go = await grep({ pattern: "func $F($$$P)", language: "go" });
    expect(textOf(go)).not.toContain("read as");
    expect(matchesOf(go).map((m) => m.line)).toEqual([3]);
  });

  it("a header keyword alone (Rust's `pub`, Java's `static`) is the token it is, as the CLI matches it: no body added", async () => {
    const files = {
      "a.rs": "pub struct Item {\n    pub name: String,\n}\n\nfn hidden() {}\n",
      "A.java": "public class A {\n  public static int x = 1;\n  static void f() {}\n}\n",
    };
    const { grep, workdir } = await astClient(files);
    for (const [pattern, language] of [
      ["pub", "rust"],
      ["static", "java"],
    ] as const) {
      const result = await grep({ pattern, language });
      expect(textOf(result), `${language} ${pattern}`).not.toContain("read as");
      const cli = astGrepCli(workdir, ["run", "-p", pattern, "-l", language, "."]);
      expect(
        matchesOf(result).map((m) => m.line),
        `${language} ${pattern}`,
      ).toEqual(cli.map((m) => m.range.start.line + 1));
      expect(cli.length, `${language} ${pattern}`).toBeGreaterThan(1);
    }
  });

  it("ast_edit carries the body over unchanged, its lines and indentation kept", async () => {
    const files = {
      "a.py":
        "def f(a, b):\n    x = a\n    if x:\n        return b\n    return a\n\n\nclass K:\n    def m(self):\n        return 1\n",
      "b.ts": "class Q {\n  m() {\n    if (x) {\n      y();\n    }\n  }\n}\n",
    };
    const { edit, resolve, workdir } = await astClient(files);
    const py = await edit({ pattern: "def $F($$$A):", rewrite: "async def $F($$$A):", language: "python" });
    expect(textOf(py)).toContain(
      "read as `def $F($$$A): $$$BODY` (its body left to match anything); the rewrite read as `async def $F($$$A): ⏎     $$$BODY` (the body carried over unchanged)",
    );
    await resolve("edit_1");
    const ts = await edit({ pattern: "if ($C)", rewrite: "if (!($C))", language: "typescript" });
    expect(textOf(ts)).toContain("the rewrite read as `if (!($C)) { ⏎   $$$BODY ⏎ }`");
    await resolve("edit_2");
    expect(await treeOf(workdir)).toEqual({
      "a.py":
        "async def f(a, b):\n    x = a\n    if x:\n        return b\n    return a\n\n\nclass K:\n    async def m(self):\n        return 1\n",
      "b.ts": "class Q {\n  m() {\n    if (!(x)) {\n      y();\n    }\n  }\n}\n",
    });
  });

  /** The files after one ast_edit is staged and accepted, with the edit's answer. */
  async function accepted(files: Record<string, string>, args: Record<string, unknown>) {
    const { edit, resolve, workdir } = await astClient(files);
    const staged = await edit(args);
    expect(staged.isError, textOf(staged)).toBeFalsy();
    await resolve("edit_1");
    return { answer: textOf(staged), tree: await treeOf(workdir) };
  }

  it("a Go func or Kotlin class header in ast_edit keeps the body, at the file's own indentation (tabs, four spaces)", async () => {
    // Go declares a bodiless func as the same kind: taken as written, it matched the whole function and the
    // rewrite dropped the body.
    const go = await accepted(
      { "a.go": "package p\n\nfunc f(a int) int {\n\tif a > 0 {\n\t\treturn a\n\t}\n\treturn 0\n}\n" },
      { pattern: "func $F($$$A) int", rewrite: "func $F($$$A) int64", language: "go" },
    );
    expect(go.answer).toContain("(the body carried over unchanged)");
    expect(go.tree).toEqual({
      "a.go": "package p\n\nfunc f(a int) int64 {\n\tif a > 0 {\n\t\treturn a\n\t}\n\treturn 0\n}\n",
    });
    // Kotlin's class is the same kind with or without its body, too.
    const kt = await accepted(
      { "a.kt": "class A {\n    val x = 1\n}\n" },
      { pattern: "class $C", rewrite: "open class $C", language: "kotlin" },
    );
    expect(kt.tree).toEqual({ "a.kt": "open class A {\n    val x = 1\n}\n" });
    // Four spaces a level stay four (the body went to two past its header).
    const ts = await accepted(
      { "a.ts": "function f(x: number) {\n    if (x) {\n        g();\n    }\n}\n" },
      { pattern: "if ($C)", rewrite: "if (!($C))", language: "typescript" },
    );
    expect(ts.tree).toEqual({ "a.ts": "function f(x: number) {\n    if (!(x)) {\n        g();\n    }\n}\n" });
    // A search still matches the func as written, with or without a body.
    const { grep } = await astClient({ "b.go": "package p\n\nfunc g(a int)\n\nfunc h(a int) {\n}\n" });
    expect(matchesOf(await grep({ pattern: "func $F($$$A)", language: "go" })).map((m) => m.line)).toEqual([
      3, 5,
    ]);
  });

  it("a rewrite may place the completed body itself; in a file indented with tabs its lines get tabs", async () => {
    const py = await accepted(
      { "b.py": "def g(a):\n\tif a:\n\t\treturn 1\n\treturn 0\n" },
      {
        pattern: "def $F($$$A):",
        rewrite: "def $F($$$A):\n    print('in')\n    $$$BODY",
        language: "python",
      },
    );
    expect(py.tree).toEqual({ "b.py": "def g(a):\n\tprint('in')\n\tif a:\n\t\treturn 1\n\treturn 0\n" });
  });
});

describe("the answer's rows", () => {
  it("matches sit under their file; captures are listed only for a match whose code the row does not show whole", async () => {
    const { grep } = await astClient({
      "a.py": "send(1, 2)\nsend(\n    'x',\n    'y',\n)\n",
      "b.py": "send(3, 4)\n",
    });
    const text = textOf(await grep({ pattern: "send($A, $B)", language: "python" }));
    expect(text.split("\n").slice(1)).toEqual([
      "a.py",
      "  1  send(1, 2)",
      "  2  send( ⏎ 'x', ⏎ 'y', ⏎ … (1 more line)",
      "      $A = 'x'; $B = 'y'",
      "b.py",
      "  1  send(3, 4)",
    ]);
  });
});

describe("data files", () => {
  it("YAML: metavariables in value position capture scalars, flow collections and list items", async () => {
    const { grep } = await astClient({
      "c.yaml": "name: runbound\ndeps:\n  a: 1\n  b: [1, 2]\nlist:\n  - x\n  - y\n",
    });
    const captures = async (pattern: string) =>
      matchesOf(await grep({ pattern, path: "c.yaml" })).map((m) => [m.line, m.captures]);
    expect(await captures("name: $N")).toEqual([[1, { N: "runbound" }]]);
    expect(await captures("b: $V")).toEqual([[4, { V: "[1, 2]" }]]);
    expect(await captures("- $ITEM")).toEqual([
      [6, { ITEM: "x" }],
      [7, { ITEM: "y" }],
    ]);
  });

  it("JSON: metavariables inside strings capture keys and string values; a bare one is refused with what works", async () => {
    const { grep } = await astClient({ "p.json": '{\n  "name": "runbound",\n  "deps": {"a": 1}\n}\n' });
    expect(matchesOf(await grep({ pattern: '"$K": "$V"', path: "p.json" }))).toMatchObject([
      { line: 2, captures: { K: "name", V: "runbound" } },
    ]);
    expect(matchesOf(await grep({ pattern: '"$K": 1', path: "p.json" }))).toMatchObject([
      { line: 3, captures: { K: "a" } },
    ]);
    const bare = textOf(await grep({ pattern: '"deps": $D', path: "p.json" }));
    expect(bare).toMatch(
      /^Unparseable pattern for json: `"deps": \$D` is not valid json in any context tried/,
    );
    expect(bare).toContain('In JSON a metavariable works only inside a string: `"name": "$N"`');
  });
});

/** The lines where ast-grep's CLI matches `pattern` in `file` (relative to `dir`). */
function cliLines(dir: string, file: string, language: string, pattern: string): number[] {
  return astGrepCli(dir, ["run", "-p", pattern, "-l", language, file]).map((m) => m.range.start.line + 1);
}

const DECLARATIONS = {
  "A.java":
    "public class A {\n  void run(int n) {\n    System.out.println(n);\n  }\n  int twice(int n) { return 2 * n; }\n  void stop() {}\n}\n",
  "a.kt":
    "fun greet(name: String) {\n    println(name)\n}\nclass Box(val v: Int) {\n    fun get(): Int = v\n    fun put(n: Int) { println(n) }\n}\n",
  "a.c":
    "#define SIDE 2\nstruct point { int x; int y; };\nint area(int w, int h) {\n  if (w < 0) return 0;\n  if (h < 0) { return 0; }\n  return w * h;\n}\nvoid none(void) {}\n",
  "a.ts":
    'import { a } from "./a.js";\nexport function f(x: number): number {\n  switch (x) {\n    case 1:\n      return a;\n  }\n  return 0;\n}\n',
  "a.go": "package a\n\ntype Point struct {\n\tX int\n}\n\ntype Shape interface {\n\tArea() float64\n}\n",
  "a.rb": "class Greeter\n  def hi; end\nend\n",
};

describe("the scaffold ladder", () => {
  it("`($$$P)` and `{ $$$B }` in Java, Kotlin and C match where ast-grep's CLI matches the same pattern (a function is not taken from the scaffold's own)", async () => {
    const { grep, workdir } = await astClient(DECLARATIONS);
    const cases: [string, string, string][] = [
      ["java", "A.java", "void $M($$$P) { $$$B }"],
      ["java", "A.java", "$T $M($$$P) { $$$B }"],
      ["java", "A.java", "void $M(int $N) { $$$B }"],
      ["kotlin", "a.kt", "fun $F($$$P) { $$$B }"],
      ["kotlin", "a.kt", "fun $F($$$P)"],
      ["kotlin", "a.kt", "fun $F($N: Int) { $$$B }"],
      ["c", "a.c", "int $F($$$P) { $$$B }"],
      ["c", "a.c", "void $F($$$P) { $$$B }"],
      // A statement that ends in a metavariable: with the scaffold's `;` it was another (0 matches each).
      ["c", "a.c", "if ($C) $S"],
      ["c", "a.c", "return $X"],
      ["c", "a.c", "#define $N $V"],
      ["typescript", "a.ts", "switch ($X) { $$$C }"],
    ];
    for (const [language, file, pattern] of cases) {
      const ours = matchesOf(await grep({ pattern, path: file, language })).map((m) => m.line);
      const cli = cliLines(workdir, file, language, pattern);
      expect(cli.length, `${language} ${pattern}`).toBeGreaterThan(0);
      expect(ours, `${language} ${pattern}`).toEqual(cli);
    }
  });

  it("Python: a decorator, an except clause and a header left without its colon are found; Go: a case clause", async () => {
    const { grep } = await astClient({
      "a.py":
        "@cache\ndef f(x):\n    try:\n        return g(x)\n    except KeyError as e:\n        raise ValueError(x) from e\n",
      "a.go": "package a\n\nfunc f(x int) int {\n\tswitch x {\n\tcase 1:\n\t\treturn 2\n\t}\n\treturn 0\n}\n",
    });
    const decorator = await grep({ pattern: "@$D", path: "a.py" });
    expect(decorator.structuredContent).toMatchObject({
      rung: "as ast-grep reads it",
      selector: "decorator",
    });
    expect(matchesOf(decorator).map((m) => m.captures.D)).toEqual(["cache"]);
    const handler = await grep({ pattern: "except $E as $N:", path: "a.py" });
    expect(textOf(handler)).toContain(
      "the pattern parsed as an except clause (except_clause), read as `except $E as $N: $$$_`",
    );
    expect(matchesOf(handler).map((m) => [m.line, m.captures.E])).toEqual([[5, "KeyError"]]);
    const def = await grep({ pattern: "def $F($$$A)", path: "a.py" });
    expect(textOf(def)).toContain("read as `def $F($$$A): $$$_` (its body left to match anything)");
    expect(matchesOf(def).map((m) => m.captures.F)).toEqual(["f"]);
    const go = await grep({ pattern: "case $X:", path: "a.go" });
    expect(go.structuredContent).toMatchObject({ rung: "case clause", selector: "expression_case" });
    expect(matchesOf(go).map((m) => m.line)).toEqual([5]);
  });

  it("annotations in Java and Kotlin, and a case clause in TypeScript, parse in a context of their own", async () => {
    const { grep, workdir } = await astClient({
      ...DECLARATIONS,
      "B.java":
        'class B {\n  @Override\n  public String toString() { return "b"; }\n  @Deprecated void old() {}\n}\n',
      "b.kt": "@JvmStatic\nfun main() {}\n",
    });
    const java = await grep({ pattern: "@$A", path: "B.java" });
    expect(java.structuredContent).toMatchObject({
      rung: "as ast-grep reads it",
      selector: "marker_annotation",
    });
    expect(matchesOf(java).map((m) => m.captures.A)).toEqual(["Override", "Deprecated"]);
    expect(matchesOf(java).map((m) => m.line)).toEqual(cliLines(workdir, "B.java", "java", "@$A"));
    const kotlin = await grep({ pattern: "@$A", path: "b.kt" });
    expect(matchesOf(kotlin).map((m) => m.line)).toEqual(cliLines(workdir, "b.kt", "kotlin", "@$A"));
    const ts = await grep({ pattern: "case $X:", path: "a.ts" });
    expect(ts.structuredContent).toMatchObject({ rung: "case clause", selector: "switch_case" });
    expect(matchesOf(ts).map((m) => m.line)).toEqual([4]);
  });

  it("a header that opens with its type, or Go's `type`, is completed with a body; Ruby's `class $C` is refused with what works", async () => {
    const { grep } = await astClient(DECLARATIONS);
    const java = await grep({ pattern: "void $M($$$P)", path: "A.java" });
    expect(textOf(java)).toContain("read as `void $M($$$P) { $$$_ }` (its body left to match anything)");
    expect(matchesOf(java).map((m) => m.captures.M)).toEqual(["run", "stop"]);
    const go = await grep({ pattern: "type $T struct", path: "a.go" });
    expect(textOf(go)).toContain("read as `type $T struct { $$$_ }`");
    expect(matchesOf(go).map((m) => m.captures.T)).toEqual(["Point"]);
    expect(
      matchesOf(await grep({ pattern: "type $T interface", path: "a.go" })).map((m) => m.captures.T),
    ).toEqual(["Shape"]);
    const ruby = await grep({ pattern: "class $C", path: "a.rb" });
    expect(ruby.isError).toBe(true);
    expect(textOf(ruby)).toContain(
      "In Ruby a class or module name is a constant, which a metavariable cannot stand for: write the name (`class Greeter`), or give a `rule` instead of `pattern`: `{ kind: class }`",
    );
    const byKind = await grep({ rule: { kind: "class" }, path: "a.rb" });
    expect(matchesOf(byKind).map((m) => m.line)).toEqual([1]);
    // Where a string goes, a metavariable cannot stand: the refusal says to write the quotes.
    expect(textOf(await grep({ pattern: "import { $$$N } from $M", path: "a.ts" }))).toContain(
      'A module path is a string, which a metavariable cannot stand for: write its quotes, `from "$M"`',
    );
    expect(matchesOf(await grep({ pattern: 'import { $$$N } from "$M"', path: "a.ts" }))).toHaveLength(1);
    expect(textOf(await grep({ pattern: "import $P", path: "a.go" }))).toContain(
      'An import path is a string, which a metavariable cannot stand for: write its quotes, `import "$P"`',
    );
  });

  it("a Dart call (no call node) is found inside a statement, and the SPEC's guard only where it disposes what it checked", async () => {
    const { grep } = await astClient({
      "a.dart":
        "void main() {\n  print('x');\n  if (a != null) a.dispose();\n  if (a != null) b.dispose();\n}\n",
    });
    const print = await grep({ pattern: "print($$$A)", path: "a.dart" });
    expect(textOf(print)).toMatch(
      /^1 match in 1 file \(searched 1 dart file under a\.dart; the pattern parsed as a statement \(expression_statement\)\):\na\.dart\n {2}2 {2}print\('x'\);$/,
    );
    const guard = await grep({ pattern: "if ($X != null) $X.dispose()", path: "a.dart" });
    expect(matchesOf(guard).map((m) => m.line)).toEqual([3]);
  });

  it("Go and C calls parse only inside a function body; the rung used is named", async () => {
    const { grep } = await astClient({
      "m.go": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tx := fmt.Sprint(1)\n\tfmt.Println(x)\n}\n',
      "m.c": '#include <stdio.h>\nint main(void) { int n = printf("a"); printf("%d", n); return 0; }\n',
    });
    const go = await grep({ pattern: "fmt.$F($$$A)", path: "m.go" });
    expect(matchesOf(go).map((m) => m.captures.F)).toEqual(["Sprint", "Println"]);
    expect(go.structuredContent).toMatchObject({ rung: "statement", selector: "call_expression" });
    const c = await grep({ pattern: "printf($$$A)", path: "m.c" });
    expect(matchesOf(c)).toHaveLength(2);
    expect(c.structuredContent).toMatchObject({ rung: "statement", selector: "call_expression" });
  });

  it("`a: number` in TypeScript is a class field, not a labeled statement", async () => {
    const { grep } = await astClient({
      "a.ts": "class A {\n  a: number;\n  b: string;\n}\nlabel: for (;;) {}\n",
    });
    const result = await grep({ pattern: "$N: number", path: "a.ts" });
    expect(result.structuredContent).toMatchObject({
      rung: "class member",
      selector: "public_field_definition",
    });
    expect(matchesOf(result).map((m) => m.line)).toEqual([2]);
  });

  it.each([
    ["typescript", "a.ts", "foo(("],
    ["python", "a.py", 'print("a'],
    ["go", "a.go", "func ("],
    ["dart", "a.dart", "if ($X != null"],
  ])(
    "%s: an unparseable pattern is an error saying where it broke, never zero matches",
    async (language, file, pattern) => {
      const { grep } = await astClient({ [file]: "" });
      const result = await grep({ pattern, path: file });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(
        new RegExp(
          `^Unparseable pattern for ${language}: .* so it was not searched\\.\\n- as .*breaks at character \\d+`,
        ),
      );
    },
  );

  it("names each context it tried so that no two lines of the refusal read the same", async () => {
    const { grep } = await astClient({ "a.py": "", "a.ts": "" });
    // Both read "- as an expression: it breaks at character 1, near `@decorator`" twice before.
    for (const [pattern, path] of [
      ["@decorator(", "a.py"],
      ["elif:", "a.py"],
    ] as const) {
      const tried = textOf(await grep({ pattern, path }))
        .split("\n")
        .filter((line) => line.startsWith("- as "));
      expect(tried.length).toBeGreaterThan(2);
      expect(new Set(tried).size, tried.join("\n")).toBe(tried.length);
    }
  });

  it("quotes where a pattern broke as it was written, metavariables included (it showed the parser's stand-in µ)", async () => {
    const { grep } = await astClient({ "a.py": "" });
    const text = textOf(await grep({ pattern: "lambda $X:", path: "a.py" }));
    expect(text).toContain("- as a bare fragment: it breaks at character 1, near `lambda $X:`");
    expect(text).not.toContain("µ");
  });
});

describe("ast_grep scope", () => {
  it("honours .gitignore, skips node_modules and hidden folders, and caps the list with 'showing N of M'", async () => {
    const files: Record<string, string> = {
      ".gitignore": "build/\n",
      "src/a.py": "f(1)\nf(2)\nf(3)\n",
      "build/gen.py": "f(9)\n",
      "node_modules/m/x.py": "f(9)\n",
      ".hidden/y.py": "f(9)\n",
      "src/sub/.gitignore": "skip.py\n",
      "src/sub/skip.py": "f(9)\n",
    };
    const { grep } = await astClient(files);
    const result = await grep({ pattern: "f($N)", language: "python", max_results: 2 });
    expect(textOf(result)).toMatch(/^3 matches in 1 file \(showing 2 of 3; searched 1 python file under \./);
    expect(matchesOf(result).map((m) => `${m.path}:${m.line}`)).toEqual(["src/a.py:1", "src/a.py:2"]);
  });

  it("a folder needs `language` and is told which are there; a wrong or unknown one is refused; paths stay inside", async () => {
    const { grep } = await astClient({ "a.py": "x\n", "b.py": "y\n", "c.go": "package c\n" });
    expect(textOf(await grep({ pattern: "x" }))).toBe(
      "`language` is needed to search a folder: the workdir holds python (2 files), go (1 file).",
    );
    expect(textOf(await grep({ pattern: "x", language: "cobol" }))).toMatch(
      /^`language` "cobol" is not in the grammar bundle; use one of: typescript, tsx, /,
    );
    expect(textOf(await grep({ pattern: "x", path: "a.py", language: "go" }))).toBe(
      "`language` go does not match a.py, which is python; drop `language` or pass python.",
    );
    expect(textOf(await grep({ pattern: "x", path: "../" }))).toMatch(
      /^`path` "..\/" is outside the workdir/,
    );
  });

  it("a file over the per-file limit is skipped and named; alone, nothing is searched and the answer says why", async () => {
    const workdir = await workdirWith({ "a.js": "f(1)\n", "big.js": "f(2);\n".repeat(2000) });
    const { client } = await astRun(workdir, { maxFileKB: 4 });
    const skipped =
      "1 file over the 4 KB a search parses per file was skipped: big.js (12 KB) (minified or generated code, most often; the harness raises the limit with ast.maxFileKB).";
    const result = await call(client, "ast_grep", { pattern: "f($X)", language: "javascript" });
    const all = textOf(result);
    expect(all).toMatch(/^1 match in 1 file \(searched 1 javascript file under \./);
    expect(all.split("\n").slice(-2)).toEqual([
      skipped,
      "Incomplete: files over the size limit were not searched (named above).",
    ]);
    expect(result.structuredContent).toMatchObject({ complete: false });
    const alone = await call(client, "ast_grep", { pattern: "f($X)", path: "big.js" });
    expect(alone.isError).toBe(true);
    expect(textOf(alone)).toBe(`Nothing was searched: ${skipped}`);
    expect(
      textOf(await call(client, "ast_edit", { pattern: "f($X)", rewrite: "g($X)", language: "javascript" })),
    ).toContain(skipped);
  });

  it("says whether a search is complete: capped at max_results, a file that cannot be read when its turn comes", async () => {
    const workdir = await workdirWith({ "a.py": "print(1)\nprint(2)\nprint(3)\n" });
    const { client } = await astRun(workdir);
    const whole = await call(client, "ast_grep", { pattern: "print($X)", language: "python" });
    expect(whole.structuredContent).toMatchObject({ complete: true, total: 3 });
    expect(textOf(whole)).not.toContain("Incomplete");
    const capped = await call(client, "ast_grep", {
      pattern: "print($X)",
      language: "python",
      max_results: 2,
    });
    expect(textOf(capped).split("\n").at(-1)).toBe("Incomplete: showing 2 of 3 matches (max_results 2).");
    expect(capped.structuredContent).toMatchObject({
      complete: false,
      incomplete_because: ["showing 2 of 3 matches (max_results 2)"],
    });
  });

  it("counts a file that is no longer a regular file when its turn comes (listed, then replaced): not searched", async () => {
    const workdir = await workdirWith({ "a.py": "print(1)\n", "b.py": "print(2)\n" });
    const grammar = grammarById("python")!;
    const { matcher } = compileQuery(grammar, { pattern: "print($X)" });
    const files = ["a.py", "b.py"].map((rel) => ({ rel, abs: path.join(workdir, rel) }));
    // b.py was listed as a file; by the time it is read it is a named pipe (a read would wait on it for good).
    await rm(files[1]!.abs);
    execFileSync("mkfifo", [files[1]!.abs]);
    const task = { id: 1, search: 1, lang: grammar.lang, rule: matcher.rule, spec: matcher, keep: 10, files };
    const result = await runTask(task, new TreeCache(0), async () => undefined);
    expect(result).toMatchObject({ unreadable: 1, parsed: 1 });
    expect(result.files.map((f) => f.file.rel)).toEqual(["a.py"]);
  });

  it("an ast_edit past 5,000 replacements is refused with the count, nothing staged", async () => {
    const { edit } = await astClient({ "many.js": "f(1);\n".repeat(5001) });
    const result = await edit({ pattern: "f($X)", rewrite: "g($X)", language: "javascript" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "The pattern matches 5,001 places in 1 file, more than the 5,000 one ast_edit stages; nothing was staged. Narrow `path` or the pattern, and rewrite in parts.",
    );
  });

  it("a template that repeats a large capture cannot grow a file without bound: refused, nothing staged", async () => {
    const { workdir, edit } = await astClient({ "a.js": `f("${"x".repeat(5000)}");\n` });
    const before = await treeOf(workdir);
    const result = await edit({ pattern: "f($A)", rewrite: Array(300).fill("$A").join("+"), path: "a.js" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "The rewrite would make a.js more than 1.0 MB (it is 5 KB); nothing was staged. `rewrite` repeats a large capture: use each metavariable once, or narrow `path` or the pattern and rewrite in parts.",
    );
    expect(await treeOf(workdir)).toEqual(before);
  });

  it("a pattern over 10,000 characters is refused by its length before any parse (1 MB held the host 8.5 s)", async () => {
    const { grep } = await astClient({ "a.ts": "f(1);\n" });
    const result = await grep({ pattern: `f(${"x, ".repeat(5000)}(`, path: "a.ts" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "`pattern` is 15,003 characters, over the 10,000 a pattern may have: give a smaller fragment (a distinctive line or call of the code, with $X for the parts that vary), or a `rule` with `regex`.",
    );
  });

  it("a lone multi metavariable is the pattern's fault, said as such (it read as a fault of runbound)", async () => {
    const { grep, edit } = await astClient({ "a.py": "f(1, 2)\n", "b.js": "f(1)\n" });
    const alone =
      "`pattern` `$$$` alone matches nothing: a multi metavariable stands for a list inside a larger pattern (`f($$$ARGS)`, `[$$$ITEMS]`). To match any single node, use `$X`.";
    for (const language of ["python", "javascript"]) {
      const result = await grep({ pattern: "$$$", language });
      expect(result.isError, language).toBe(true);
      expect(textOf(result), language).toBe(alone);
    }
    expect(textOf(await edit({ pattern: "$$$ARGS", rewrite: "x", language: "javascript" }))).toBe(
      alone.replace("`$$$` alone", () => "`$$$ARGS` alone"),
    );
  });
});

describe("large scopes go to the run's search workers", () => {
  it("150 files: the same matches, the prefilter skips files without the pattern's words, and a rewrite still applies", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 150; i++)
      files[`m${String(i).padStart(3, "0")}.py`] = i % 3 === 0 ? `x = legacy_call(${i})\n` : `y = ${i}\n`;
    const { grep, edit, resolve, workdir } = await astClient(files);
    const found = await grep({ pattern: "legacy_call($N)", language: "python", max_results: 1000 });
    expect(found.structuredContent).toMatchObject({ total: 50, files: 50, searched: 150 });
    expect(textOf(found)).toMatch(
      /^50 matches in 50 files \(showing 50 of 50|^50 matches in 50 files \(searched 150 python files/,
    );
    expect(matchesOf(found)[1]).toMatchObject({ path: "m003.py", line: 1, captures: { N: "3" } });
    const staged = await edit({ pattern: "legacy_call($N)", rewrite: "modern_call($N)", language: "python" });
    expect(textOf(staged)).toMatch(/^\(proposed\) 50 replacements in 50 files/);
    await resolve("edit_1");
    expect(await readFile(path.join(workdir, "m147.py"), "utf8")).toBe("x = modern_call(147)\n");
    expect(await readFile(path.join(workdir, "m148.py"), "utf8")).toBe("y = 148\n");
  });
});

describe("ast_edit and resolve", () => {
  it("stages without writing, previews, and accept writes every file", async () => {
    const files = {
      "a.go": "package a\n\nfunc A() {\n\tdispose(x)\n\tdispose(y.z)\n}\n",
      "b.go": "package a\n\nfunc B() {\n\tdispose(q)\n}\n",
    };
    const { edit, resolve, workdir } = await astClient(files);
    const staged = await edit({ pattern: "dispose($X)", rewrite: "$X.Dispose()", language: "go" });
    expect(textOf(staged)).toMatch(
      /^\(proposed\) 3 replacements in 2 files — nothing is written yet; call resolve with edit_id "edit_1" and action "accept" \(or "discard"\)\./,
    );
    expect(textOf(staged)).toContain(
      "\na.go\n  4  - dispose(x)\n     + x.Dispose()\n  5  - dispose(y.z)\n     + y.z.Dispose()\nb.go\n  4  - dispose(q)\n",
    );
    expect(await treeOf(workdir)).toEqual(files);
    const accepted = await resolve("edit_1");
    expect(textOf(accepted)).toBe(
      "Applied edit_1: 3 replacements in 2 files.\n  a.go (2 replacements)\n  b.go (1 replacement)",
    );
    expect(await readFile(path.join(workdir, "a.go"), "utf8")).toBe(
      "package a\n\nfunc A() {\n\tx.Dispose()\n\ty.z.Dispose()\n}\n",
    );
    expect(textOf(await resolve("edit_1"))).toBe(
      "edit_1 was already accepted; there is nothing left to resolve.",
    );
    expect(textOf(await resolve("edit_7"))).toBe(
      'There is no staged edit "edit_7". Staged now: none (ast_edit stages one).',
    );
  });

  it("$$$ rewrites keep Python's indentation valid when a block moves deeper", async () => {
    const source =
      "def f(items):\n    for x in items:\n        if x:\n            print(x)\n            print(x * 2)\n";
    const { edit, resolve, workdir } = await astClient({ "f.py": source });
    const staged = await edit({
      pattern: "for $V in $L:\n    $$$BODY",
      rewrite: "for $V in $L:\n    try:\n        $$$BODY\n    except ValueError:\n        pass",
      path: "f.py",
    });
    expect(staged.isError, textOf(staged)).toBeFalsy();
    await resolve("edit_1");
    const after = await readFile(path.join(workdir, "f.py"), "utf8");
    expect(after).toBe(
      "def f(items):\n    for x in items:\n        try:\n            if x:\n                print(x)\n                print(x * 2)\n        except ValueError:\n            pass\n",
    );
    const compiled = spawnSync("python3", [
      "-c",
      "import ast,sys; ast.parse(open(sys.argv[1]).read())",
      path.join(workdir, "f.py"),
    ]);
    expect(compiled.status, compiled.stderr.toString()).toBe(0);
  });

  it("a match inside another is reported, not dropped silently", async () => {
    const { edit } = await astClient({ "n.py": "f(f(1))\n" });
    const staged = await edit({ pattern: "f($A)", rewrite: "g($A)", path: "n.py" });
    expect(textOf(staged)).toContain(
      "1 match inside another match was not rewritten (the outer one was): n.py:1. Run ast_edit again after resolving to rewrite it.",
    );
    expect(staged.structuredContent).toMatchObject({ replacements: 1, overlaps: ["n.py:1"] });
  });

  it("a rewrite that gives each match back unchanged says it matched (it read as 'No matches'), nothing staged", async () => {
    const { edit, workdir } = await astClient({ "a.py": "print(1)\nprint(2)\n" });
    const result = await edit({ pattern: "print($X)", rewrite: "print($X)", path: "a.py" });
    expect(textOf(result)).toBe(
      "2 matches in 1 file under a.py (the pattern parsed as written, as ast-grep's CLI parses it (call)), but the rewrite gives back the same text for each; nothing was staged.",
    );
    expect(result.structuredContent).toMatchObject({ edit_id: null, replacements: 0 });
    expect(await readFile(path.join(workdir, "a.py"), "utf8")).toBe("print(1)\nprint(2)\n");
  });

  it("discard writes nothing; a rewrite using an unbound metavariable is refused", async () => {
    const files = { "a.py": "f(1)\n" };
    const { edit, resolve, workdir } = await astClient(files);
    expect(textOf(await edit({ pattern: "f($A)", rewrite: "g($B)", path: "a.py" }))).toBe(
      "`rewrite` uses $B, which the pattern does not bind (it binds $A). Nothing was staged.",
    );
    await edit({ pattern: "f($A)", rewrite: "g($A)", path: "a.py" });
    expect(textOf(await resolve("edit_1", "discard"))).toBe(
      "Discarded edit_1 (1 replacement in 1 file); nothing was written.",
    );
    expect(await treeOf(workdir)).toEqual(files);
  });

  it("one stale file among several rejects the whole change", async () => {
    const files = { "a.py": "f(1)\n", "b.py": "f(2)\n", "c.py": "f(3)\n" };
    const { edit, resolve, workdir, run } = await astClient(files);
    await edit({ pattern: "f($A)", rewrite: "g($A)", language: "python" });
    await writeFile(path.join(workdir, "b.py"), "f(2)\n# touched\n");
    // Refused before any approval, the edit kept (to discard)...
    expect(textOf(await resolve("edit_1"))).toBe(
      "b.py changed on disk after edit_1 was staged, so accepting it would undo that change. Nothing was changed: run ast_edit again to stage a fresh edit, or discard edit_1.",
    );
    // ...and when the file changes between that check and the commit, the commit refuses it and drops the edit.
    await expect(run.resource("ast")!.resolve({ edit_id: "edit_1", action: "accept" })).rejects.toThrow(
      "resolve: b.py changed on disk after the change was computed, so none of it was applied. Nothing was changed; try again. edit_1 is dropped: run ast_edit again to stage a fresh one.",
    );
    expect(textOf(await resolve("edit_1", "discard"))).toBe(
      "edit_1 was already rejected; there is nothing left to resolve.",
    );
    expect(await treeOf(workdir)).toEqual({ ...files, "b.py": "f(2)\n# touched\n" });
  });

  it("a write failure midway leaves every file as it was (chattr +i: even root cannot replace it)", async () => {
    const files = { "a.py": "f(1)\n", "b.py": "f(2)\n", "c.py": "f(3)\n" };
    const { edit, resolve, workdir } = await astClient(files);
    await edit({ pattern: "f($A)", rewrite: "g($A)", language: "python" });
    const chattr = (flag: string) => {
      const r = spawnSync("chattr", [flag, path.join(workdir, "c.py")], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(`chattr needs root on ext4 here: ${r.stderr}`);
    };
    chattr("+i");
    try {
      expect(textOf(await resolve("edit_1"))).toMatch(
        /^resolve failed while writing \(EPERM.*\); the files already written were restored\. Nothing was changed\./,
      );
    } finally {
      chattr("-i");
    }
    expect(await treeOf(workdir)).toEqual(files);
  });

  it("ast_edit and resolve are write-tier: absent on plan, where ast_grep works", async () => {
    const workdir = await workdirWith({ "a.py": "f(1)\n" });
    const run = track(await createRun({ workdir, lsp: false }));
    expect(run.tools("plan")).toContain("ast_grep");
    expect(run.tools("plan")).not.toContain("ast_edit");
    expect(run.tools("plan")).not.toContain("resolve");
  });

  it("after accept, diagnostics on write report what the rewrite broke", async () => {
    const { edit, resolve } = await astClient(
      { "pyproject.toml": "", "a.py": "def f(x):\n    return x\n\nf(1)\n" },
      true,
    );
    await edit({ pattern: "f($A)", rewrite: "g($A)", path: "a.py" });
    const accepted = await resolve("edit_1");
    expect(textOf(accepted)).toMatch(
      /Applied edit_1: 1 replacement in 1 file\.\n {2}a\.py \(1 replacement\)\n\nDiagnostics after this write: 1 new one:\n {2}a\.py:4 error: "g" is not defined/,
    );
  });

  it("a rewrite of 24 files: the answer lists 20 and counts the rest, and diagnostics for all of them raise no listener warning", async () => {
    const files: Record<string, string> = { "pyproject.toml": "" };
    for (let i = 0; i < 24; i++)
      files[`m${String(i).padStart(2, "0")}.py`] = "def f(x):\n    return x\n\nf(1)\n";
    const { edit, resolve } = await astClient(files, true);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    try {
      await edit({ pattern: "f($A)", rewrite: "g($A)", language: "python" });
      const text = textOf(await resolve("edit_1"));
      expect(text).toMatch(/^Applied edit_1: 24 replacements in 24 files\.\n {2}m00\.py \(1 replacement\)\n/);
      expect(text).toContain("  m19.py (1 replacement)\n  … and 4 more files (showing 20 of 24)\n");
      expect(text).toMatch(/Diagnostics after this write: 24 new ones:/);
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });
});

describe("staged edits", () => {
  it("hold at most their budget of text: past it an edit is refused naming the ones to resolve, and resolving frees it", async () => {
    const workdir = await workdirWith({ "a.txt": "a\n" });
    const edits = new StagedEdits(workdir, 4000);
    const file = (rel: string, size: number): StagedFile => ({
      file: { rel, abs: path.join(workdir, rel) },
      original: "x".repeat(size),
      updated: "y".repeat(size),
      replacements: 1,
    });
    expect(edits.add([file("a.txt", 500)], 1)).toBe("edit_1");
    expect(edits.add([file("a.txt", 400)], 1)).toBe("edit_2");
    expect(() => edits.add([file("a.txt", 300)], 1)).toThrow(
      "Nothing was staged: this edit's files (2 KB of old and new text) and the edits staged already (4 KB) would be more than the 4 KB a run keeps staged. Resolve (accept or discard) edit_1, edit_2 first, or narrow `path` or the pattern.",
    );
    await edits.resolve({ edit_id: "edit_1", action: "discard" });
    expect(edits.add([file("a.txt", 300)], 1)).toBe("edit_3");
  });
});
