/**
 * The grammar bundle: every language ast_grep knows, its file extensions, its tree-sitter grammar (ast-grep's
 * built-ins, or a prebuilt parser from an @ast-grep/lang-* package), and its scaffold ladder — the contexts a
 * pattern fragment is parsed in, in order. Measured facts behind the ladders:
 * - a Dart call has no call node (an identifier followed by `selector` siblings): only a statement holds it;
 * - Go and C accept only declarations at top level; `fmt.Println(x)` there parses, wrongly, as a type conversion;
 * - `a: number` in TypeScript is a class field only inside a class; bare it is a labeled statement.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Lang, registerDynamicLanguage } from "@ast-grep/napi";
import { GRAMMAR_PACKAGES } from "./packages.mjs";

/** Where the pattern goes in a rung's context. */
export const HOLE = "__RUNBOUND_PATTERN__";

export type RungName =
  | "as ast-grep reads it"
  | "bare"
  | "statement"
  | "expression"
  | "class member"
  | "declaration"
  | "object member"
  | "set or dict entry"
  | "decorator"
  | "except clause"
  | "case clause"
  | "annotation";

export interface Rung {
  readonly name: RungName;
  /** The context text, with HOLE where the pattern goes. */
  readonly context: string;
  /** A `;` missing right after a pattern that ends in a metavariable is let pass (a statement without its own). */
  readonly openEnd?: boolean;
}

export interface Grammar {
  /** The id the tools take as `language`. */
  readonly id: string;
  /** What napi's parse() takes: a built-in Lang or a registered dynamic language name. */
  readonly lang: string;
  readonly extensions: readonly string[];
  /** The character ast-grep substitutes for `$` while parsing a pattern (must be an identifier character). */
  readonly expando: string;
  readonly ladder: readonly Rung[];
  /** Node kinds that parse but are almost never what a pattern means; used only if no rung gives another. */
  readonly implausible?: readonly string[];
  /**
   * What completes a compound statement's header written without its body (`def $F($$$A):`, `if ($C)`), with
   * BODY_VAR where the body's metavariable goes; absent where the grammar has none.
   */
  readonly body?: string;
  /** The same for a rewrite, where it differs (Python's body on its own lines, so a block stays valid). */
  readonly rewriteBody?: string;
  /** Kinds a header alone parses as that are not what it means (`fn $F()` as a trait's signature item). */
  readonly headerKinds?: readonly string[];
  /**
   * Kinds whose body is optional (Go's `func`, Kotlin's `class A`), each with the kinds its body may
   * be: written without one, a pattern matches them with or without it, so a search keeps it as written and an edit
   * completes it (its rewrite then carries the body instead of dropping it).
   */
  readonly optionalBodyKinds?: Readonly<Record<string, readonly string[]>>;
  /** The token that ends a header before its body (Python's `:`), added in a completion when left out. */
  readonly headerEnd?: string;
}

/** Where a header's completion puts the body's metavariable ($$$ and a name). */
export const BODY_VAR = "__RUNBOUND_BODY__";
const BRACES = ` { ${BODY_VAR} }`;
/** A braced body in a rewrite: on its own lines, so the carried block keeps its lines and indentation. */
const BRACES_REWRITE = ` {\n  ${BODY_VAR}\n}`;

const bare: Rung = { name: "bare", context: HOLE };

const CLIKE_STATEMENT = (fn: string): Rung => ({
  name: "statement",
  context: fn.replace("BODY", `\n${HOLE};\n`),
});
/** The pattern's own `;` may be missing where it ends in a metavariable (the parse says MISSING there). */
const CLIKE_STATEMENT_OPEN = (fn: string): Rung => ({ ...CLIKE_STATEMENT_NO_SEMI(fn), openEnd: true });
const CLIKE_STATEMENT_NO_SEMI = (fn: string): Rung => ({
  name: "statement",
  context: fn.replace("BODY", `\n${HOLE}\n`),
});

const JS_LADDER: Rung[] = [
  bare,
  { name: "class member", context: `class __C {\n${HOLE}\n}` },
  { name: "expression", context: `__x = (${HOLE});` },
  { name: "object member", context: `({ ${HOLE} });` },
  { name: "case clause", context: `switch (__x) {\n${HOLE}\n}` },
];

/** A function or method signature without a body: what `function $F($$$P)` or `if ($C)` parse as alone. */
const JS_HEADER_KINDS = ["method_signature", "function_signature", "abstract_method_signature"];

export const GRAMMARS: readonly Grammar[] = [
  {
    id: "typescript",
    lang: Lang.TypeScript,
    extensions: [".ts", ".mts", ".cts"],
    expando: "$",
    ladder: JS_LADDER,
    implausible: ["labeled_statement"],
    body: BRACES,
    rewriteBody: BRACES_REWRITE,
    headerKinds: JS_HEADER_KINDS,
  },
  {
    id: "tsx",
    lang: Lang.Tsx,
    extensions: [".tsx"],
    expando: "$",
    ladder: JS_LADDER,
    implausible: ["labeled_statement"],
    body: BRACES,
    rewriteBody: BRACES_REWRITE,
    headerKinds: JS_HEADER_KINDS,
  },
  {
    id: "javascript",
    lang: Lang.JavaScript,
    extensions: [".js", ".mjs", ".cjs", ".jsx"],
    expando: "$",
    ladder: JS_LADDER,
    implausible: ["labeled_statement"],
    body: BRACES,
    rewriteBody: BRACES_REWRITE,
    headerKinds: JS_HEADER_KINDS,
  },
  { id: "html", lang: Lang.Html, extensions: [".html", ".htm"], expando: "z", ladder: [bare] },
  {
    id: "css",
    lang: Lang.Css,
    extensions: [".css"],
    expando: "_",
    ladder: [bare, { name: "declaration", context: `.__c { ${HOLE} }` }],
  },
  {
    id: "python",
    lang: "python",
    extensions: [".py", ".pyi"],
    expando: "µ",
    ladder: [
      bare,
      { name: "expression", context: `__x = ${HOLE}` },
      { name: "set or dict entry", context: `{${HOLE}}` },
      { name: "class member", context: `class __C:\n${HOLE}` },
      // `@$D` alone is not Python: a decorator stands above a definition; an `except` clause below a `try`.
      { name: "decorator", context: `${HOLE}\ndef __f():\n    pass` },
      { name: "except clause", context: `try:\n    pass\n${HOLE}` },
    ],
    headerEnd: ":",
    body: ` ${BODY_VAR}`,
    rewriteBody: `\n    ${BODY_VAR}`,
  },
  {
    id: "go",
    lang: "go",
    extensions: [".go"],
    expando: "µ",
    ladder: [
      CLIKE_STATEMENT_NO_SEMI("func __f() {BODY}"),
      { name: "declaration", context: HOLE },
      { name: "expression", context: `var __x = ${HOLE}` },
      { name: "class member", context: `type __T struct {\n${HOLE}\n}` },
      { name: "case clause", context: `func __f() {\n\tswitch {\n${HOLE}\n\t}\n}` },
    ],
    implausible: ["type_conversion_expression"],
    // A function without a body (written in assembly) is the same kind as one with.
    optionalBodyKinds: { function_declaration: ["block"], method_declaration: ["block"] },
    body: BRACES,
    rewriteBody: BRACES_REWRITE,
  },
  {
    id: "rust",
    lang: "rust",
    extensions: [".rs"],
    expando: "µ",
    ladder: [
      // An item (fn, struct, impl) parses inside a function body too, but matches nothing from there.
      { name: "declaration", context: HOLE },
      CLIKE_STATEMENT("fn __f() {BODY}"),
      CLIKE_STATEMENT_NO_SEMI("fn __f() {BODY}"),
      { name: "class member", context: `impl __S {\n${HOLE}\n}` },
      { name: "expression", context: `fn __f() { let __x = ${HOLE}; }` },
    ],
    body: BRACES,
    rewriteBody: BRACES_REWRITE,
    headerKinds: ["function_signature_item"],
  },
  {
    id: "c",
    lang: "c",
    extensions: [".c", ".h"],
    expando: "_",
    ladder: [
      CLIKE_STATEMENT("void __f(void) {BODY}"),
      // A statement that ends in a metavariable (`if ($C) $S`, `return $X`): with the scaffold's `;`, `$S` is an
      // expression statement and `return $X;` takes in the scaffold's text.
      CLIKE_STATEMENT_OPEN("void __f(void) {BODY}"),
      { name: "declaration", context: HOLE },
      { name: "class member", context: `struct __S {\n${HOLE};\n};` },
      { name: "expression", context: `int __x = ${HOLE};` },
      { name: "case clause", context: `void __f(void) { switch (__x) {\n${HOLE}\n} }` },
    ],
    // A call alone at top level parses as a macro type (`printf($$$A)`), which never matches a call: ast-grep's CLI
    // then finds nothing; read in a function body instead.
    implausible: ["macro_type_specifier"],
    body: BRACES,
    rewriteBody: BRACES_REWRITE,
  },
  {
    id: "cpp",
    lang: "cpp",
    extensions: [".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"],
    expando: "_",
    ladder: [
      CLIKE_STATEMENT("void __f() {BODY}"),
      // A statement that ends in a metavariable (`if ($C) $S`, `return $X`): with the scaffold's `;`, `$S` is an
      // expression statement and `return $X;` takes in the scaffold's text.
      CLIKE_STATEMENT_OPEN("void __f() {BODY}"),
      { name: "declaration", context: HOLE },
      { name: "class member", context: `class __C {\n${HOLE};\n};` },
      { name: "expression", context: `auto __x = ${HOLE};` },
      { name: "case clause", context: `void __f() { switch (__x) {\n${HOLE}\n} }` },
    ],
    body: BRACES,
    rewriteBody: BRACES_REWRITE,
  },
  {
    id: "java",
    lang: "java",
    extensions: [".java"],
    expando: "$",
    ladder: [
      CLIKE_STATEMENT("class __C { void __f() {BODY} }"),
      // A statement that ends in a metavariable (`if ($C) $S`, `return $X`): with the scaffold's `;`, `$S` is an
      // expression statement and `return $X;` takes in the scaffold's text.
      CLIKE_STATEMENT_OPEN("class __C { void __f() {BODY} }"),
      { name: "class member", context: `class __C {\n${HOLE}\n}` },
      { name: "declaration", context: HOLE },
      { name: "expression", context: `class __C { Object __x = ${HOLE}; }` },
      { name: "annotation", context: `class __C {\n${HOLE}\nvoid __f() {}\n}` },
      { name: "case clause", context: `class __C { void __f() { switch (__x) {\n${HOLE}\n} } }` },
    ],
    body: BRACES,
    rewriteBody: BRACES_REWRITE,
  },
  {
    id: "kotlin",
    lang: "kotlin",
    extensions: [".kt", ".kts"],
    expando: "µ",
    ladder: [
      CLIKE_STATEMENT_NO_SEMI("fun __f() {BODY}"),
      { name: "class member", context: `class __C {\n${HOLE}\n}` },
      { name: "declaration", context: HOLE },
      // `@$A` alone is not Kotlin: an annotation stands before a declaration.
      { name: "annotation", context: `${HOLE}\nfun __f() {}` },
    ],
    // A class, an object or a function may be declared without a body.
    optionalBodyKinds: {
      class_declaration: ["class_body", "enum_class_body"],
      object_declaration: ["class_body"],
      function_declaration: ["function_body"],
    },
    body: BRACES,
    rewriteBody: BRACES_REWRITE,
  },
  {
    id: "dart",
    lang: "dart",
    extensions: [".dart"],
    expando: "$",
    ladder: [
      CLIKE_STATEMENT("void __f() {BODY}"),
      { name: "class member", context: `class __C {\n${HOLE}\n}` },
      { name: "declaration", context: HOLE },
      { name: "expression", context: `var __x = ${HOLE};` },
    ],
  },
  {
    id: "ruby",
    lang: "ruby",
    extensions: [".rb"],
    expando: "µ",
    ladder: [bare, { name: "class member", context: `class C__\n${HOLE}\nend` }],
    body: `\n${BODY_VAR}\nend`,
  },
  { id: "bash", lang: "bash", extensions: [".sh", ".bash"], expando: "$", ladder: [bare] },
  {
    id: "json",
    lang: "json",
    extensions: [".json"],
    expando: "$",
    ladder: [bare, { name: "object member", context: `{${HOLE}}` }],
  },
  { id: "yaml", lang: "yaml", extensions: [".yaml", ".yml"], expando: "$", ladder: [bare] },
  // The grammars ast-grep publishes beyond these, read as ast-grep reads a pattern (PHP within its open tag).
  { id: "csharp", lang: "csharp", extensions: [".cs"], expando: "µ", ladder: [bare] },
  { id: "elixir", lang: "elixir", extensions: [".ex", ".exs"], expando: "µ", ladder: [bare] },
  { id: "haskell", lang: "haskell", extensions: [".hs"], expando: "µ", ladder: [bare] },
  { id: "lua", lang: "lua", extensions: [".lua"], expando: "$", ladder: [bare] },
  {
    id: "php",
    lang: "php",
    extensions: [".php"],
    expando: "$",
    // PHP is text until `<?php`: a pattern alone is read after one, as ast-grep's CLI reads PHP (its php_only).
    ladder: [
      { name: "statement", context: `<?php\n${HOLE}` },
      { name: "statement", context: `<?php\n${HOLE};` },
      { name: "class member", context: `<?php\nclass __C {\n${HOLE}\n}` },
      { name: "expression", context: `<?php\n$__x = ${HOLE};` },
      bare,
    ],
    // Without its open tag a pattern is PHP's text: never what is meant.
    implausible: ["text", "program"],
  },
  { id: "scala", lang: "scala", extensions: [".scala", ".sc", ".sbt"], expando: "$", ladder: [bare] },
  { id: "sql", lang: "sql", extensions: [".sql"], expando: "_", ladder: [bare] },
  { id: "swift", lang: "swift", extensions: [".swift"], expando: "µ", ladder: [bare] },
  { id: "toml", lang: "toml", extensions: [".toml"], expando: "_", ladder: [bare] },
  { id: "markdown", lang: "markdown", extensions: [".md", ".markdown"], expando: "$", ladder: [bare] },
  // Angular's templates are HTML files: chosen by `language`, never by extension (html comes first).
  { id: "angular", lang: "angular", extensions: [".html"], expando: "z", ladder: [bare] },
];

export { GRAMMAR_PACKAGES };

/** The parsers registered in this process, by grammar id (napi takes one registration per process). */
let registered: ReadonlySet<string> | undefined;

/** ast-grep's names for where a package keeps its prebuilt parser (`prebuilds/prebuild-Linux-X64/parser.so`). */
const PREBUILD_OS: Record<string, string> = { linux: "Linux", darwin: "macOS", win32: "Windows" };
const PREBUILD_ARCH: Record<string, string> = { x64: "X64", arm64: "ARM64" };

/**
 * A dynamic grammar's parser file: its package from runbound's dependencies, else from `npmPrefix` (runbound's
 * home). The file is found, not asked of the package's index: some print to stdout when asked, and older ones
 * name a parser.so only their install script (not run: pnpm, --ignore-scripts) would have copied into place.
 */
export function grammarParser(
  id: string,
  npmPrefix?: string,
): { libraryPath: string; languageSymbol: string; expandoChar: string; extensions: string[] } | undefined {
  const pkg = GRAMMAR_PACKAGES[id];
  const grammar = grammarById(id);
  if (!pkg || !grammar) return undefined;
  const froms = [import.meta.url, ...(npmPrefix ? [path.join(npmPrefix, "package.json")] : [])];
  for (const from of froms) {
    let dir: string;
    try {
      dir = path.dirname(createRequire(from).resolve(`@ast-grep/lang-${id}/package.json`));
    } catch {
      continue;
    }
    const prebuild = `prebuild-${PREBUILD_OS[process.platform]}-${PREBUILD_ARCH[process.arch]}`;
    for (const file of [path.join(dir, "prebuilds", prebuild, "parser.so"), path.join(dir, "parser.so")])
      if (existsSync(file))
        return {
          libraryPath: file,
          languageSymbol: pkg.symbol,
          expandoChar: grammar.expando,
          extensions: grammar.extensions.map((e) => e.slice(1)),
        };
  }
  return undefined;
}

/**
 * Registers the parsers found — runbound's own grammars and those `runbound setup` put in `npmPrefix` — with napi,
 * once per process (napi takes no second registration): a grammar installed later is usable after a restart.
 */
export function ensureGrammars(npmPrefix?: string): ReadonlySet<string> {
  if (registered) return registered;
  const modules: Record<string, NonNullable<ReturnType<typeof grammarParser>>> = {};
  for (const id of Object.keys(GRAMMAR_PACKAGES)) {
    const parser = grammarParser(id, npmPrefix);
    if (parser) modules[id] = parser;
  }
  registerDynamicLanguage(modules);
  registered = new Set(Object.keys(modules));
  return registered;
}

/** Whether a grammar can parse here: napi's own, or a dynamic one whose parser was registered. */
export function grammarReady(grammar: Grammar): boolean {
  return !GRAMMAR_PACKAGES[grammar.id] || (registered?.has(grammar.id) ?? false);
}

export function grammarById(id: string): Grammar | undefined {
  return GRAMMARS.find((g) => g.id === id);
}

export function grammarForFile(file: string): Grammar | undefined {
  const dot = file.lastIndexOf(".");
  if (dot === -1) return undefined;
  const ext = file.slice(dot).toLowerCase();
  return GRAMMARS.find((g) => g.extensions.includes(ext));
}
