/**
 * The literal prefilter reads a pattern's words as tokens: a file holding `require` only inside
 * `__webpack_require__` is never parsed, yet no file the CLI finds a match in is skipped — a number running into
 * the next token (`1if`, `1in`), `$` beside a word, a word beside a metavariable, a non-ASCII letter.
 */
import { describe, expect, it } from "vitest";
import { METAVAR } from "../src/ast/query/compile.js";
import { holdsWord, literalWords } from "../src/ast/query/words.js";
import { createRun } from "../src/index.js";
import { astGrepCli, track, workdirWith } from "./helpers.js";

const bounded = (text: string) => ({ text, left: true, right: true });
const never = new AbortController().signal;

describe("a pattern's words, with the edges a file's occurrence must respect", () => {
  it("a word between punctuation is bounded on both sides; beside a metavariable it is not", () => {
    expect(literalWords("require($M)", METAVAR)).toEqual([bounded("require")]);
    expect(literalWords("$Xfoo$$$Y", METAVAR)).toEqual([{ text: "foo", left: false, right: false }]);
    expect(literalWords("foo$bar + foo", METAVAR)).toEqual([bounded("foo"), bounded("bar")]);
  });

  it("a word that starts with a digit is never bounded (a number runs into its suffix: 10ms, 1u32)", () => {
    expect(literalWords("x = 10ms", METAVAR)).toEqual([{ text: "10ms", left: false, right: false }]);
  });

  it("a file's occurrence inside a longer word does not count; one after a number, `$` or a non-ASCII letter does", () => {
    const word = bounded("require");
    expect(holdsWord("__webpack_require__(1); requires; Xrequire", word)).toBe(false);
    expect(holdsWord("x.require(1)", word)).toBe(true);
    expect(holdsWord("$require", word)).toBe(true);
    expect(holdsWord("érequire", word)).toBe(true);
    expect(holdsWord("0x1frequire", word)).toBe(true);
    expect(holdsWord("a1require", word)).toBe(false);
    expect(holdsWord("require", word)).toBe(true);
    expect(holdsWord("__require_ _1require require_", word)).toBe(false);
    expect(holdsWord("__require_ 1require", word)).toBe(true);
  });

  it("a run of a million word characters costs its length, not its square (a rescan per occurrence: many minutes)", () => {
    const run = `b${"a".repeat(1_000_000)}`;
    expect(holdsWord(`${run} 9${run}`, bounded("aa"))).toBe(true);
    expect(holdsWord(run, bounded("aa"))).toBe(false);
    expect(holdsWord(run, { text: "aa", left: true, right: false })).toBe(false);
    expect(holdsWord(run, { text: "aa", left: false, right: true })).toBe(true);
  });
});

/** Each case: files in one language, and patterns whose match sets must equal the CLI's. */
const CASES: { language: string; ext: string; files: string[]; patterns: string[] }[] = [
  {
    language: "javascript",
    ext: "js",
    files: [
      "__webpack_require__(1);\n",
      'const a = require("a");\n',
      "x.require(2);\n",
      "$require(3); foo$require(4);\n",
      "const b = 1in obj;\n",
      "let é = ærequire(5);\n",
    ],
    patterns: ["require($M)", "$A in $B", "$O.require($X)", "$require($N)"],
  },
  {
    language: "python",
    ext: "py",
    files: ["x = 1if y else 2\n", "z = 0or w\n", "v = 1 if_ y\n", "print(a if b else c)\n"],
    patterns: ["$A if $B else $C", "$A or $B"],
  },
];

describe("no file the CLI matches in is skipped", () => {
  for (const c of CASES) {
    it(`${c.language}: the same matches as ast-grep's CLI`, async () => {
      const files = Object.fromEntries(c.files.map((text, i) => [`f${i}.${c.ext}`, text]));
      const workdir = await workdirWith(files);
      const run = track(await createRun({ workdir, approver: "always", lsp: false, kernels: false }));
      const engine = run.resource("ast")!;
      for (const pattern of c.patterns) {
        const ours = (await engine.search({ pattern, language: c.language, max_results: 100 }, never))
          .structured;
        const theirs = astGrepCli(workdir, ["run", "--pattern", pattern, "--lang", c.language, "."]);
        expect(theirs.length, pattern).toBeGreaterThan(0);
        expect(ours.matches.map((m) => `${m.path}:${m.line}:${m.column}`).sort(), pattern).toEqual(
          theirs.map((m) => `${m.file}:${m.range.start.line + 1}:${m.range.start.column + 1}`).sort(),
        );
      }
    });
  }

  it("a file that holds the word only inside longer words is not parsed", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) files[`bundle${i}.js`] = `__webpack_require__(${i}); module.requires = 1;\n`;
    files["main.js"] = 'const fs = require("fs");\n';
    const workdir = await workdirWith(files);
    const run = track(await createRun({ workdir, approver: "always", lsp: false, kernels: false }));
    const found = await run
      .resource("ast")!
      .search({ pattern: "require($M)", language: "javascript" }, never);
    expect(found.structured.total).toBe(1);
    expect(found.cost).toEqual({ parsed: 1, reused: 0 });
  });
});
