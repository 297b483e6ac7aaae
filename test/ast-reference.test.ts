/**
 * ast_grep against ast-grep's CLI (the same engine, 0.51; the dynamic languages given the same parsers runbound
 * loads, so a grammar's version is never the difference): thousands of patterns and rules generated from real code
 * in every language runbound ships (test/ast-reference/), each run through runbound and through the CLI on the same
 * files; the match sets (file, start and end) must be identical. A case runbound refuses where the CLI answers is a
 * mismatch. Where runbound deliberately differs, the rule is named and counted:
 * - "context": a fragment ast-grep cannot parse alone (its parse has an ERROR node; the CLI warns and matches
 *   nothing) is read in a context of runbound's ladder;
 * - "refused": such a fragment that no context reads is refused, saying why, instead of matching nothing.
 * Every mismatch is printed as the ast_grep call that reproduces it, with both answers' counts.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import { parse } from "@ast-grep/napi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureGrammars, GRAMMARS, type Grammar, grammarById, grammarParser } from "../grammars/index.js";
import { createRun, type Run } from "../src/index.js";
import { type Case, casesFor, seeded } from "./ast-reference/cases.js";
import { candidates } from "./ast-reference/sources.js";
import { astGrepCli, call, HOME, suiteWorkdir, textOf } from "./helpers.js";

const SEED = 20261205;
/** Cases of each shape per language (six shapes, two of them half as many): ~5 × this per language. */
const PER_SHAPE = 40;
const FILES_PER_LANGUAGE = 4;

const require = createRequire(import.meta.url);
const CLI = path.join(path.dirname(require.resolve("@ast-grep/cli/package.json")), "ast-grep");

/** The CLI's name for a grammar: the dynamic ones are registered under a name of their own (see sgconfig). */
const cliLanguage = (g: Grammar) =>
  ({ typescript: "TypeScript", tsx: "Tsx", javascript: "JavaScript", html: "Html", css: "Css" })[g.id] ??
  `rb${g.id}`;

interface Answer {
  readonly keys: string[];
  readonly text: string;
  readonly total: number;
  readonly refused?: string;
  readonly rung?: string;
}

function sgconfig(): string {
  const custom = GRAMMARS.filter((g) => cliLanguage(g).startsWith("rb")).map((g) => {
    // The same parser file runbound registers: runbound's own grammar, or the one setup put in its home.
    const lang = grammarParser(g.id, HOME.npmPrefix);
    if (!lang) throw new Error(`no parser for ${g.id}: npx runbound setup --only grammars`);
    // Angular's templates are .html files: given to it by name (languageGlobs match a file's name), not extension.
    const extensions = g.id === "angular" ? ["ngtemplate"] : g.extensions.map((e) => e.slice(1));
    return `  ${cliLanguage(g)}:\n    libraryPath: ${JSON.stringify(lang.libraryPath)}\n    extensions: [${extensions.map((e) => JSON.stringify(e)).join(", ")}]\n    languageSymbol: ${lang.languageSymbol}\n    expandoChar: ${JSON.stringify(lang.expandoChar)}`;
  });
  return `ruleDirs: []\ncustomLanguages:\n${custom.join("\n")}\nlanguageGlobs:\n  ${cliLanguage(grammarById("angular")!)}: ["*.component.html"]\n`;
}

function patternsOf(args: Case["args"]): string[] {
  const found: string[] = [];
  const visit = (value: unknown, key?: string) => {
    if (key === "pattern" && typeof value === "string") found.push(value);
    else if (value && typeof value === "object")
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) visit(v, k);
  };
  visit(args);
  return found;
}

describe("ast_grep against ast-grep's CLI, on patterns and rules generated from real code", () => {
  let workdir: string;
  let remove = async () => {};
  let run: Run;
  const plan: { grammar: Grammar; cases: Case[]; dir: string }[] = [];

  beforeAll(async () => {
    ensureGrammars(HOME.npmPrefix);
    ({ dir: workdir, remove } = await suiteWorkdir({ "sgconfig.yml": sgconfig() }));
    for (const grammar of GRAMMARS) {
      const files = candidates(grammar.id);
      const random = seeded(SEED + grammar.id.length);
      const chosen = [...files].sort(() => random() - 0.5).slice(0, FILES_PER_LANGUAGE);
      const dir = `src-${grammar.id}`;
      mkdirSync(path.join(workdir, dir));
      const sources: string[] = [];
      for (const [i, file] of chosen.entries()) {
        // Angular's templates by Angular's own naming, which the CLI's languageGlobs tell from other HTML.
        const suffix = grammar.id === "angular" ? ".component.html" : grammar.extensions[0];
        const target = path.join(workdir, dir, `f${i}${suffix}`);
        copyFileSync(file, target);
        sources.push(readFileSync(target, "utf8"));
      }
      plan.push({ grammar, cases: casesFor(grammar, sources, SEED, PER_SHAPE), dir });
    }
    run = await createRun({ workdir, lsp: false, kernels: false });
  }, 120_000);

  afterAll(async () => {
    await run?.dispose();
    await remove();
  });

  it("every shipped language has real files and thousands of cases in all", () => {
    for (const { grammar, cases } of plan) expect(cases.length, grammar.id).toBeGreaterThanOrEqual(150);
    expect(plan.reduce((n, p) => n + p.cases.length, 0)).toBeGreaterThanOrEqual(3000);
  });

  it("the same matches as the CLI, case by case; the deliberate differences only where the CLI cannot parse the pattern", async () => {
    const client = await run.link({ surface: "readonly" });
    const mismatches: string[] = [];
    const named = { context: 0, refused: 0, bothRefused: 0, runMode: 0, errorOnly: 0 };
    let compared = 0;
    for (const { grammar, cases, dir } of plan) {
      const reference = await cliAnswers(workdir, grammar, cases, dir);
      for (const c of cases) {
        const args = { path: dir, language: grammar.id, max_results: 1000, ...c.args };
        const result = await call(client, "ast_grep", args);
        const ours: Answer = result.isError
          ? { keys: [], refused: textOf(result), text: "", total: 0 }
          : {
              text: textOf(result),
              total: Number((result.structuredContent as { total: number }).total),
              keys: (
                (result.structuredContent as { matches: Record<string, number | string>[] }).matches ?? []
              ).map((m) => `${m.path}:${m.line}:${m.column}-${m.end_line}:${m.end_column}`),
              rung: String((result.structuredContent as { rung: string }).rung),
            };
        const answer = reference.get(c.id) ?? [];
        if (!Array.isArray(answer)) {
          // The CLI will not load it: runbound refuses it too, or reads it in a context (a named difference). A
          // pattern alone that a scan rule refuses for want of a kind is what `ast-grep run -p` takes: any node.
          if (ours.refused) named.bothRefused++;
          else if (!c.args.rule && /must specify a set of AST kinds/.test(answer.refused)) named.runMode++;
          else if (ours.rung !== "as ast-grep reads it") named.context++;
          else
            mismatches.push(
              `ast_grep ${JSON.stringify(args)} → runbound ${ours.keys.length} matches, the CLI refused it: ${answer.refused}`,
            );
          continue;
        }
        const theirs = answer;
        // runbound's ladder reads what ast-grep cannot use as written (an ERROR node, or a label where code means an
        // object member); the CLI then finds nothing, and runbound's reading (or its refusal) is the named rule.
        const ladder = ours.refused
          ? /^(In `[^`]+`: )?Unparseable pattern/.test(ours.refused)
          : ours.rung !== "as ast-grep reads it" &&
            (ours.rung !== "rule" || / as (?!written, as ast-grep's CLI parses it)/.test(ours.text));
        // A pattern that parses to nothing but an ERROR node: the CLI matches unrelated nodes with it (`default:` for
        // `: IStock` in C#, every parse error of the files for `stat.a` in SQL); runbound refuses it as unparseable.
        if (
          ours.refused &&
          ladder &&
          theirs.length > 0 &&
          c.args.pattern &&
          onlyError(grammar, c.args.pattern)
        ) {
          named.errorOnly++;
          continue;
        }
        if (ladder && theirs.length === 0) {
          if (ours.refused) named.refused++;
          else named.context++;
          continue;
        }
        compared++;
        // Past the 1000 listed, the total and every listed one.
        const same =
          !ours.refused &&
          (theirs.length > 1000
            ? ours.total === theirs.length && ours.keys.every((k) => theirs.includes(k))
            : ours.keys.length === theirs.length &&
              [...ours.keys].sort().join("\n") === [...theirs].sort().join("\n"));
        if (!same)
          mismatches.push(
            `ast_grep ${JSON.stringify(args)} → runbound ${ours.refused ? `refused: ${ours.refused.split("\n")[0]}` : `${ours.keys.length} matches`}, the CLI ${theirs.length}${
              ours.refused
                ? ""
                : `; only runbound: ${ours.keys
                    .filter((k) => !theirs.includes(k))
                    .slice(0, 3)
                    .join(", ")}; only the CLI: ${theirs
                    .filter((k) => !ours.keys.includes(k))
                    .slice(0, 3)
                    .join(", ")}`
            }`,
          );
      }
    }
    console.log(
      `ast reference: ${compared} cases compared, ${mismatches.length} mismatches; both refused: ${named.bothRefused}; a lone pattern a scan rule refuses for want of a kind (run -p takes it): ${named.runMode}; deliberate: ${named.context} read in a context, ${named.refused} refused (the CLI could not parse them), ${named.errorOnly} refused where the CLI matched unrelated nodes with a pattern that is only an ERROR node`,
    );
    expect(mismatches, mismatches.slice(0, 40).join("\n")).toEqual([]);
  }, 600_000);
});

/**
 * The CLI's answer per case id, from a `scan` of the language's folder with every case as a rule: its matches, or
 * "refused" with its reason for a rule it will not load. It then refuses the whole file: the rule is found (by the
 * pattern the message names, else by halving) and set apart, and the rest scanned again.
 */
async function cliAnswers(
  workdir: string,
  grammar: Grammar,
  cases: readonly Case[],
  dir: string,
): Promise<Map<string, string[] | { refused: string }>> {
  const answers = new Map<string, string[] | { refused: string }>();
  const file = path.join(workdir, `rules-${grammar.id}.yml`);
  const scanAll = async (list: readonly Case[]): Promise<void> => {
    if (list.length === 0) return;
    const rules = list.map((c) =>
      JSON.stringify({
        id: c.id,
        language: cliLanguage(grammar),
        rule: c.args.rule ?? { pattern: c.args.pattern },
        ...(c.args.constraints ? { constraints: c.args.constraints } : {}),
        ...(c.args.utils ? { utils: c.args.utils } : {}),
      }),
    );
    writeFileSync(file, `${rules.join("\n---\n")}\n`);
    let stdout: string;
    try {
      ({ stdout } = await promisify(execFile)(
        CLI,
        [
          "scan",
          "--config",
          "sgconfig.yml",
          "--custom-languages",
          "allow",
          "--rule",
          file,
          "--json=compact",
          dir,
        ],
        { cwd: workdir, encoding: "utf8", maxBuffer: 512 * 1024 * 1024 },
      ));
    } catch (error) {
      const said = String((error as { stderr?: string }).stderr ?? error);
      if (!said.includes("Cannot parse rule")) throw error;
      const reason =
        said
          .split("\n")
          .filter((l) => l.includes("╰▻"))
          .pop()
          ?.replace(/^.*╰▻\s*/, "") ?? said;
      if (list.length === 1) {
        answers.set(list[0]!.id, { refused: reason });
        return;
      }
      const source = /pattern source `([^`]*)`/.exec(said)?.[1];
      const named = list.filter((c) => source !== undefined && patternsOf(c.args).includes(source));
      if (named.length) {
        for (const c of named) answers.set(c.id, { refused: reason });
        return scanAll(list.filter((c) => !named.includes(c)));
      }
      const half = Math.ceil(list.length / 2);
      await scanAll(list.slice(0, half));
      return scanAll(list.slice(half));
    }
    for (const c of list) answers.set(c.id, []);
    for (const m of JSON.parse(stdout) as {
      ruleId: string;
      file: string;
      range: { start: { line: number; column: number }; end: { line: number; column: number } };
    }[]) {
      const key = `${m.file}:${m.range.start.line + 1}:${m.range.start.column + 1}-${m.range.end.line + 1}:${m.range.end.column + 1}`;
      (answers.get(m.ruleId) as string[]).push(key);
    }
  };
  await scanAll(cases);
  return answers;
}

describe("the cases users met, against the CLI", () => {
  const files = {
    "a.rs":
      'const SSL_VERIFY_NONE: i32 = 0;\nfn main() {\n    let v = SSL_VERIFY_NONE;\n    println!("{}", v);\n}\n',
    "a.cpp":
      "struct S { int get() const; };\nint S::get() const { return 1; }\nint main() { S s; return s.get(); }\n",
    "a.py": "x = \"hello\"\nprint(x, 'world')\n",
    "a.js": "const x = 'hello';\nconsole.log(x, \"world\");\n",
    "A.java": 'class A { String s = "hello"; void f() { System.out.println("world"); } }\n',
    "a.go": 'package a\n\nimport "fmt"\n\nfunc f() { fmt.Println("hello", `world`) }\n',
  };

  it("a bare name in Rust, a lone $MEMFUNC in C++, and {kind: string, pattern: $S} in Python, JavaScript, Java and Go", async () => {
    const { dir, remove } = await suiteWorkdir(files);
    const run = await createRun({ workdir: dir, lsp: false, kernels: false });
    try {
      const client = await run.link({ surface: "readonly" });
      const lines = async (args: Record<string, unknown>) => {
        const result = await call(client, "ast_grep", args);
        expect(result.isError, textOf(result)).toBeFalsy();
        return (
          (result.structuredContent as { matches: { line: number; column: number }[] }).matches ?? []
        ).map((m) => `${m.line}:${m.column}`);
      };
      const cli = (args: string[]) =>
        astGrepCli(dir, args).map((m) => `${m.range.start.line + 1}:${m.range.start.column + 1}`);
      expect(await lines({ path: "a.rs", pattern: "SSL_VERIFY_NONE" })).toEqual(
        cli(["run", "-p", "SSL_VERIFY_NONE", "-l", "rust", "a.rs"]),
      );
      expect(await lines({ path: "a.rs", pattern: "SSL_VERIFY_NONE" })).toContain("3:13");
      const memfunc = await lines({ path: "a.cpp", rule: { kind: "field_identifier", pattern: "$MEMFUNC" } });
      expect(memfunc.length).toBeGreaterThan(0);
      expect(memfunc).toEqual(
        cli([
          "scan",
          "--inline-rules",
          "id: m\nlanguage: cpp\nrule:\n  kind: field_identifier\n  pattern: $MEMFUNC",
          "a.cpp",
        ]),
      );
      for (const [file, language] of [
        ["a.py", "python"],
        ["a.js", "javascript"],
        ["A.java", "java"],
        ["a.go", "go"],
      ] as const) {
        const kind =
          language === "go"
            ? "interpreted_string_literal"
            : language === "java"
              ? "string_literal"
              : "string";
        const ours = await lines({ path: file, rule: { kind, pattern: "$S" } });
        expect(ours.length, language).toBeGreaterThan(0);
        expect(ours, language).toEqual(
          cli([
            "scan",
            "--inline-rules",
            `id: s\nlanguage: ${language}\nrule:\n  kind: ${kind}\n  pattern: $S`,
            file,
          ]),
        );
      }
    } finally {
      await run.dispose();
      await remove();
    }
  });
});

/** Whether ast-grep reads the pattern as nothing but an ERROR node (metavariables as its expando character). */
function onlyError(grammar: Grammar, pattern: string): boolean {
  const root = parse(grammar.lang, pattern.replace(/\$/g, grammar.expando)).root();
  const children = root.children();
  return children.length === 1 && children[0]!.kind() === "ERROR";
}
