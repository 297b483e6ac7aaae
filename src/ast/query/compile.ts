/**
 * The pattern compiler. A pattern ast-grep itself parses (no ERROR node: its CLI warns about those and matches
 * nothing) is given to it as written, so the answer is the CLI's — a lone `$X` matches any node, a bare name is an
 * expression. Only where ast-grep's own parse fails (a fragment that needs a context: a class member, a `case`, a
 * header without its body) does runbound's ladder step in: each rung is tried in order, the scaffolded text parsed
 * with `$` replaced by the expando character, a rung whose parse has an ERROR or MISSING node rejected, and the node
 * that spans the pattern gives the selector. No rung → "unparseable", saying where.
 */
import { parse, type SgNode } from "@ast-grep/napi";
import { BODY_VAR, type Grammar, HOLE, type RungName } from "../../../grammars/index.js";
import { ToolError } from "../../errors.js";
import { type LiteralWord, literalWords } from "./words.js";

export interface CompiledPattern {
  readonly pattern: string;
  readonly rung: RungName;
  /** The napi rule: the pattern as written, or in its context with the kind of the node to match. */
  readonly rule: { rule: { pattern: string | { context: string; selector: string } } };
  readonly selector: string;
  /** Names bound by the pattern: single ($X) and multiple ($$$X). `$_` binds nothing. */
  readonly singles: readonly string[];
  readonly multiples: readonly string[];
  /** Words that every matching file must contain (the literal prefilter). */
  readonly literals: readonly LiteralWord[];
  /** A header written without its body, completed: the pattern as written and the body's metavariable. */
  readonly completed?: { readonly written: string; readonly body: string };
}

/** The longest pattern compiled: a code fragment, not a file. */
const MAX_PATTERN_CHARS = 10_000;

/** The words that open a compound statement or a declaration with a body: where a header may be completed. */
const HEADER_WORDS = new Set(
  "if elif else for while do switch match loop try with function fn func def class struct impl trait enum interface module unless until fun async pub export static public private protected unsafe const type except finally catch".split(
    " ",
  ),
);

/** A metavariable in a pattern: `$$$NAME`, a bare `$$$`, or `$NAME` (global: for replace and matchAll only). */
export const METAVAR = /\$\$\$([A-Z_][A-Z0-9_]*)?|\$([A-Z_][A-Z0-9_]*)/g;

/**
 * `body`: the name of the metavariable that stands for a completed header's body — `_` (matched, not captured) to
 * search; a name to capture it, so a rewrite can carry the body over.
 */
export function compilePattern(grammar: Grammar, pattern: string, body = "_"): CompiledPattern {
  const trimmed = pattern.trim();
  if (trimmed === "") throw new ToolError("`pattern` is empty; give a code fragment, e.g. `dispose($X)`.");
  // Each rung parses the pattern (twice over when nothing parses, more for a header): 1 MB of pattern held the
  // host's event loop for 8.5 s.
  if (trimmed.length > MAX_PATTERN_CHARS)
    throw new ToolError(
      `\`pattern\` is ${trimmed.length.toLocaleString("en-US")} characters, over the ${MAX_PATTERN_CHARS.toLocaleString("en-US")} a pattern may have: give a smaller fragment (a distinctive line or call of the code, with $X for the parts that vary), or a \`rule\` with \`regex\`.`,
    );
  // ast-grep refuses a multi metavariable that stands alone (it matches a list, inside a larger pattern).
  if (/^\$\$\$[A-Z0-9_]*$/.test(trimmed))
    throw new ToolError(
      `\`pattern\` \`${trimmed}\` alone matches nothing: a multi metavariable stands for a list inside a larger pattern (\`f($$$ARGS)\`, \`[$$$ITEMS]\`). To match any single node, use \`$X\`.`,
    );
  const written = asWritten(grammar, trimmed);
  // A header may be completed with its body (the CLI reads `def $F($$$A):` as a function with a missing body and
  // matches nothing): the ladder decides first for those.
  if (written && !headerLike(grammar, trimmed)) return written;
  const { chosen, problems } = climb(grammar, trimmed);
  const completed = withBody(grammar, trimmed, chosen, body);
  if (completed) return completed;
  if (written) return written;
  if (chosen) return chosen.compiled;
  throw new ToolError(
    `Unparseable pattern for ${grammar.id}: \`${trimmed}\` is not valid ${grammar.id} in any context tried, so it was not searched.\n` +
      problems.map((p) => `- ${p}`).join("\n") +
      "\nWrite the fragment as it appears in source (complete brackets and strings); metavariables are $NAME, $$$NAME, $_." +
      HINTS.filter((h) => h.languages.includes(grammar.id) && h.when.test(trimmed))
        .map((h) => `\n${h.hint}`)
        .join(""),
  );
}

/**
 * The pattern as ast-grep's CLI reads it, when it reads it: a lone metavariable (any node), or a parse with no ERROR
 * node (a MISSING `;` it tolerates: `let v = $X`) whose node is not one a pattern rarely means (a label).
 */
function asWritten(grammar: Grammar, trimmed: string): CompiledPattern | undefined {
  if (/^\$[A-Z_][A-Z0-9_]*$/.test(trimmed))
    return {
      ...build(trimmed, "as ast-grep reads it", trimmed, "any node"),
      rule: { rule: { pattern: trimmed } },
    };
  // ast-grep takes the one node the pattern is, through the nodes that only wrap it (an ERROR around a bare name:
  // Go's `len`, Rust's `Some`): the CLI matches by that node, so the pattern is as written when it holds no ERROR.
  const root = parse(grammar.lang, expand(trimmed, grammar.expando)).root();
  let inner = root;
  for (let only = soleChild(inner); only; only = soleChild(inner)) inner = only;
  // An ERROR, or a token the parser made up to join two nodes (TypeScript's `optional string` as
  // `optional?.string`), is no pattern to the CLI; a missing `;` or named node it tolerates (`let v = $X`).
  if (firstBroken(inner, (n) => n.kind() !== "ERROR" && (n.isNamed() || n.kind() === ";"))) return undefined;
  // Two nodes side by side (`optional string`) are no pattern to the CLI ("Multiple AST nodes are detected").
  const top = root.children().filter((c) => c.range().end.index > c.range().start.index);
  if (inner === root && top.length > 1) return undefined;
  const node = nodeSpanning(inner, 0, trimmed.length) ?? inner;
  if (!node) return undefined;
  const kind = String(node.kind());
  if (grammar.implausible?.includes(kind)) return undefined;
  const built = build(trimmed, "as ast-grep reads it", trimmed, kind);
  // Only a leaf's text is compared by ast-grep (CSS's `14px` is a node whose number is no leaf, and matches `0px`;
  // a comment pattern matches other comments): no other word may keep a file from being searched.
  const leaves = holdsComment(inner) ? [] : leafTexts(inner);
  const literals = built.literals.filter((word) => leaves.some((leaf) => leaf.includes(word.text)));
  return { ...built, literals, rule: { rule: { pattern: trimmed } } };
}

/** The texts of a pattern's leaves (metavariables in the expando's spelling: no literal word is one). */
function leafTexts(node: SgNode): string[] {
  if (node.children().length === 0) return [node.text()];
  return node.children().flatMap(leafTexts);
}

function holdsComment(node: SgNode): boolean {
  return String(node.kind()).includes("comment") || node.children().some(holdsComment);
}

/** A node's one child when it spans the node whole (a wrapper), else undefined. */
function soleChild(node: SgNode): SgNode | undefined {
  const children = node.children();
  const only = children[0];
  if (children.length !== 1 || !only) return undefined;
  const [a, b] = [node.range(), only.range()];
  return a.start.index === b.start.index && a.end.index === b.end.index ? only : undefined;
}

/** Whether a pattern may be a compound statement's header written without its body. */
function headerLike(grammar: Grammar, trimmed: string): boolean {
  const word = /^[A-Za-z_]+/.exec(trimmed)?.[0] ?? "";
  // The keyword alone (`pub`, `async`) is no header: the CLI matches it as the token it is.
  return grammar.body !== undefined && word !== trimmed && HEADER_WORDS.has(word);
}

/** Where a metavariable cannot stand in a language's grammar, and what to write instead. */
const HINTS: readonly { languages: readonly string[]; when: RegExp; hint: string }[] = [
  {
    // ast-grep reads a metavariable as a lowercase name, and Ruby wants a constant there.
    languages: ["ruby"],
    when: /^\s*(class|module)\s+\$/m,
    hint: "In Ruby a class or module name is a constant, which a metavariable cannot stand for: write the name (`class Greeter`), or give a `rule` instead of `pattern`: `{ kind: class }` (or `module`), with `has: { field: name, regex: … }` to pick by name.",
  },
  {
    // JSON's grammar has no bare word, so a metavariable can only stand inside a string there.
    languages: ["json"],
    when: /(^|[^"\w])\$/,
    hint: 'In JSON a metavariable works only inside a string: `"name": "$N"` captures a string value\'s content, `"$K": 1` a key; other values are written out (`"port": 8080`), or search the file as text.',
  },
  {
    languages: ["typescript", "tsx", "javascript"],
    when: /(\bfrom|^\s*import)\s+\$[A-Z_]/m,
    hint: 'A module path is a string, which a metavariable cannot stand for: write its quotes, `from "$M"` ($M is then the path; a pattern matches its own quote style only: for both, a `rule` with `any` of the two).',
  },
  {
    languages: ["go"],
    when: /\bimport\s+(\w+\s+)?\$[A-Z_]/,
    hint: 'An import path is a string, which a metavariable cannot stand for: write its quotes, `import "$P"` ($P is then the path).',
  },
];

/**
 * A compound statement's header written without its body (`def $F($$$A):`, `if ($C)`, `fn $F($$$P)`) — it did not
 * parse, or parsed only as a bodiless signature — completed with a body metavariable, when that parses as more.
 */
function withBody(grammar: Grammar, trimmed: string, chosen: Chosen | undefined, body: string) {
  // A header that opens with its type (Java's `void $M($$$P)`) has no header word: tried when nothing parsed.
  const header =
    HEADER_WORDS.has(/^[A-Za-z_]+/.exec(trimmed)?.[0] ?? "") || (!chosen && trimmed.endsWith(")"));
  if (!grammar.body || !header) return undefined;
  // A header that parsed whole stays as it is, unless only as a bodiless signature or by taking in the context's
  // own text (C's `if ($C)` became `if ($C);`, an if with an empty body).
  // Where the body is captured (ast_edit), a declaration whose body is optional and left out is completed too: as
  // written it matches the functions with bodies as well, and a rewrite of it would drop them.
  const signature =
    chosen && (bodiless(grammar, chosen.node) || (body !== "_" && bodyLeftOut(grammar, chosen.node)));
  if (chosen?.exact && !signature) return undefined;
  const end = grammar.headerEnd && !trimmed.endsWith(grammar.headerEnd) ? grammar.headerEnd : "";
  const text = `${trimmed}${end}${grammar.body.replace(BODY_VAR, `$$$$$$${body}`)}`;
  // In C, C++ and Java `{ $$$BODY }` is a block missing a `;` (an ERROR around the metavariable, or a MISSING `;`):
  // ast-grep matches it as a block of any statements, so that break alone is let pass.
  const lone = `${grammar.expando.repeat(3)}${body}`;
  const done = climb(
    grammar,
    text,
    (node) => node.kind() === ";" || (node.kind() === "ERROR" && node.text().trim() === lone),
  ).chosen;
  if (!done || bodiless(grammar, done.node)) return undefined;
  return { ...done.compiled, completed: { written: trimmed, body } };
}

/** A kind a header alone parses as that is only ever a signature (TypeScript's function_signature). */
function bodiless(grammar: Grammar, node: SgNode): boolean {
  return grammar.headerKinds?.includes(String(node.kind())) === true;
}

/** A declaration whose body is optional, written without one (Go's `func` declared for assembly, Kotlin's `class A`). */
function bodyLeftOut(grammar: Grammar, node: SgNode): boolean {
  const bodies = grammar.optionalBodyKinds?.[String(node.kind())];
  return bodies !== undefined && !node.children().some((c) => bodies.includes(String(c.kind())));
}

/** One rung's outcome: why it failed, or the node that spans the pattern there (in the expanded context). */
export interface Chosen {
  readonly compiled: CompiledPattern;
  readonly node: SgNode;
  /** The context as written (with `$`), character for character the text the node's offsets point into. */
  readonly context: string;
  /** Whether the node spans the pattern exactly (not the context's text around it too: `if (x);`). */
  readonly exact: boolean;
}

/**
 * Tries each rung of the ladder: the first whose parse is whole and whose spanning node is plausible wins (an
 * implausible kind — a bare word read as a label — only when nothing better parses). `problems` says why each
 * rung before the chosen one failed.
 */
export function climb(
  grammar: Grammar,
  trimmed: string,
  tolerated: (node: SgNode) => boolean = () => false,
): { chosen?: Chosen; problems: string[] } {
  // A multi metavariable alone in an ERROR is read as ast-grep reads it, the metavariable; a single one only where
  // nothing else parses: tried with the rest, it let Go's `func $F(…) { … }` parse inside the statement scaffold
  // as a func literal beside an ERROR holding `$F`.
  const multi = loneMetavariable(grammar.expando, "multi");
  const first = climbOnce(grammar, trimmed, (node) => multi(node) || tolerated(node));
  if (first.chosen) return first;
  const single = loneMetavariable(grammar.expando, "single");
  const loose = climbOnce(grammar, trimmed, (node) => multi(node) || single(node) || tolerated(node));
  return loose.chosen ? { chosen: loose.chosen, problems: first.problems } : first;
}

function climbOnce(
  grammar: Grammar,
  trimmed: string,
  allowed: (node: SgNode) => boolean,
): { chosen?: Chosen; problems: string[] } {
  const problems: string[] = [];
  let fallback: Chosen | undefined;
  let inexact: Chosen | undefined;
  for (const rung of grammar.ladder) {
    // After a parse that took in the scaffold's text, only the pattern as written (no scaffold) or as a statement
    // without its `;` may read it better; another context's exact parse is not (C's `if ($C)` as a macro type).
    if (inexact && rung.context !== HOLE && !rung.openEnd) continue;
    // A function replacement: in a string one, `$$` would turn into `$` and break $$$ metavariables.
    const context = rung.context.replace(HOLE, () => trimmed);
    const offset = rung.context.indexOf(HOLE);
    const expanded = expand(context, grammar.expando);
    const root = parse(grammar.lang, expanded).root();
    // A statement written without its `;` (`if ($C) $S`, `return $X`) is whole, as ast-grep reads it.
    const end = rung.openEnd && /\$[A-Z_][A-Z0-9_]*$/.test(trimmed) ? offset + trimmed.length : -1;
    const broken = firstBroken(root, (node) => allowed(node) || missingSemicolonAt(node, end));
    if (broken) {
      // Quoted from the pattern as written: the expansion is character for character, so the offsets agree.
      problems.push(`as ${article(rung.name)}: ${describeBreak(broken, offset, trimmed.length, context)}`);
      continue;
    }
    const node = nodeSpanning(root, offset, offset + trimmed.length);
    if (!node) {
      problems.push(`as ${article(rung.name)}: it does not form one syntax node`);
      continue;
    }
    const kind = String(node.kind());
    const range = node.range();
    // ast-grep takes the context's first node of the selector's kind: a scaffold that holds one before the
    // pattern's (Kotlin's local `fun` inside the statement scaffold's own `fun`) would have it match the scaffold.
    const first = firstOfKind(root, kind);
    if (first && first.range().start.index !== range.start.index) {
      problems.push(`as ${article(rung.name)}: the context around it is itself a ${kind}`);
      continue;
    }
    const exact = range.start.index === offset && range.end.index === offset + trimmed.length;
    const chosen = { compiled: build(trimmed, rung.name, context, kind), node, context, exact };
    if (grammar.implausible?.includes(kind)) {
      fallback ??= chosen;
      problems.push(`as ${article(rung.name)}: it reads as a ${kind}, which a pattern rarely means`);
      continue;
    }
    // A node that took in the scaffold's own text (C's `#define $N $V` with the statement's `;`) is another
    // construct than the one written: a later rung that parses the pattern exactly is preferred.
    if (!exact) {
      inexact ??= chosen;
      problems.push(`as ${article(rung.name)}: the ${kind} it forms takes in the context's own text`);
      continue;
    }
    return { chosen, problems };
  }
  const chosen = inexact ?? fallback;
  return chosen ? { chosen, problems } : { problems };
}

function build(pattern: string, rung: RungName, context: string, selector: string): CompiledPattern {
  const singles = new Set<string>();
  const multiples = new Set<string>();
  for (const m of pattern.matchAll(METAVAR)) {
    if (m[1] !== undefined && m[1] !== "_") multiples.add(m[1]);
    if (m[2] !== undefined && m[2] !== "_") singles.add(m[2]);
  }
  const literals = literalWords(pattern, METAVAR);
  return {
    pattern,
    rung,
    rule: { rule: { pattern: { context, selector } } },
    selector,
    singles: [...singles],
    multiples: [...multiples],
    literals,
  };
}

/** `$` of metavariables → the grammar's expando character, as ast-grep does before parsing a pattern. */
function expand(text: string, expando: string): string {
  return text.replace(METAVAR, (m) => m.replaceAll("$", expando));
}

/**
 * An ERROR node that is one metavariable and nothing else: where the grammar wants more than a name (Java's
 * `($$$P)`, whose parameters need a type; a block's `{ $$$B }` without a `;`; `from $M`, where a string goes),
 * ast-grep reads the ERROR as the metavariable itself, so the pattern is whole.
 */
function loneMetavariable(expando: string, which: "single" | "multi"): (node: SgNode) => boolean {
  const e = expando.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const only = new RegExp(which === "multi" ? `^${e}${e}${e}([A-Z_][A-Z0-9_]*)?$` : `^${e}[A-Z_][A-Z0-9_]*$`);
  return (node) => node.kind() === "ERROR" && only.test(node.text().trim());
}

function missingSemicolonAt(node: SgNode, index: number): boolean {
  const r = node.range();
  return node.kind() === ";" && r.start.index === index && r.end.index === index;
}

function firstBroken(node: SgNode, tolerated: (node: SgNode) => boolean): SgNode | undefined {
  if (node.kind() === "ERROR") return tolerated(node) ? undefined : node;
  const r = node.range();
  // tree-sitter's MISSING nodes are zero-width leaves inserted to complete the tree.
  if (node.isLeaf() && r.start.index === r.end.index && node.kind() !== "" && !tolerated(node)) return node;
  for (const child of node.children()) {
    const found = firstBroken(child, tolerated);
    if (found) return found;
  }
  return undefined;
}

function describeBreak(node: SgNode, offset: number, length: number, text: string): string {
  const at = node.range().start.index - offset;
  if (at < 0 || at > length) return "it does not fit that context";
  const near = text.slice(offset + at, offset + Math.min(length, at + 20)).split("\n")[0];
  const missing = node.kind() !== "ERROR" ? ` (a \`${node.kind()}\` is missing)` : "";
  return `it breaks at character ${at + 1}${near ? `, near \`${near}\`` : " (the end)"}${missing}`;
}

/** The first node of `kind` in preorder, as ast-grep's selector finds it. */
function firstOfKind(node: SgNode, kind: string): SgNode | undefined {
  if (String(node.kind()) === kind) return node;
  for (const child of node.children()) {
    const found = firstOfKind(child, kind);
    if (found) return found;
  }
  return undefined;
}

/** The innermost node whose range is exactly [start, end); else the smallest one containing it. */
function nodeSpanning(root: SgNode, start: number, end: number): SgNode | undefined {
  let exact: SgNode | undefined;
  let containing: SgNode | undefined;
  const visit = (node: SgNode) => {
    const r = node.range();
    if (r.start.index > start || r.end.index < end) return;
    if (node.kind() !== root.kind()) {
      containing = node;
      if (r.start.index === start && r.end.index === end) exact = node;
    }
    for (const child of node.children()) visit(child);
  };
  visit(root);
  return exact ?? containing;
}

/** A rung as the answers name it: "a bare fragment", "an expression", "an object member", … */
export function article(rung: RungName): string {
  if (rung === "as ast-grep reads it") return "written, as ast-grep's CLI parses it";
  return rung === "bare" ? "a bare fragment" : `${/^[aeiou]/.test(rung) ? "an" : "a"} ${rung}`;
}
