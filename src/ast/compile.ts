/**
 * The pattern compiler. ast-grep compiles a broken pattern silently and matches nothing, and a fragment only
 * matches in the context it parses in. So each rung of the language's ladder is tried in order: the scaffolded
 * text is parsed with `$` replaced by the expando character, a rung whose parse has an ERROR or MISSING node is
 * rejected, and the node that spans the pattern gives the selector. No rung → "unparseable", saying where.
 */
import { parse, type SgNode } from "@ast-grep/napi";
import { BODY_VAR, type Grammar, HOLE, type RungName } from "../../grammars/index.js";
import { ToolError } from "../errors.js";

export interface CompiledPattern {
  readonly pattern: string;
  readonly rung: RungName;
  /** The napi rule: the pattern in its context, and the kind of the node to match. */
  readonly rule: { rule: { pattern: { context: string; selector: string } } };
  readonly selector: string;
  /** Names bound by the pattern: single ($X) and multiple ($$$X). `$_` binds nothing. */
  readonly singles: readonly string[];
  readonly multiples: readonly string[];
  /** Words that every matching file must contain (the literal prefilter). */
  readonly literals: readonly string[];
  /** A header written without its body, completed: the pattern as written and the body's metavariable. */
  readonly completed?: { readonly written: string; readonly body: string };
}

/** The words that open a compound statement or a declaration with a body: where a header may be completed. */
const HEADER_WORDS = new Set(
  "if elif else for while do switch match loop try with function fn func def class struct impl trait enum interface module unless until fun async pub export static public private protected unsafe const".split(
    " ",
  ),
);

const METAVAR = /\$\$\$([A-Z_][A-Z0-9_]*)?|\$([A-Z_][A-Z0-9_]*)/g;

/**
 * `body`: the name of the metavariable that stands for a completed header's body — `_` (matched, not captured) to
 * search; a name to capture it, so a rewrite can carry the body over.
 */
export function compilePattern(grammar: Grammar, pattern: string, body = "_"): CompiledPattern {
  const trimmed = pattern.trim();
  if (trimmed === "") throw new ToolError("`pattern` is empty; give a code fragment, e.g. `dispose($X)`.");
  // ast-grep refuses a multi metavariable that stands alone (it matches a list, inside a larger pattern).
  if (/^\$\$\$[A-Z0-9_]*$/.test(trimmed))
    throw new ToolError(
      `\`pattern\` \`${trimmed}\` alone matches nothing: a multi metavariable stands for a list inside a larger pattern (\`f($$$ARGS)\`, \`[$$$ITEMS]\`). To match any single node, use \`$X\`.`,
    );
  const { chosen, problems } = climb(grammar, trimmed);
  const completed = withBody(grammar, trimmed, chosen, body);
  if (completed) return completed;
  if (chosen) return chosen.compiled;
  throw new ToolError(
    `Unparseable pattern for ${grammar.id}: \`${trimmed}\` is not valid ${grammar.id} in any context tried, so it was not searched.\n` +
      problems.map((p) => `- ${p}`).join("\n") +
      "\nWrite the fragment as it appears in source (complete brackets and strings); metavariables are $NAME, $$$NAME, $_." +
      // JSON's grammar has no bare word, so a metavariable can only stand inside a string there.
      (grammar.id === "json" && /(^|[^"\w])\$/.test(trimmed)
        ? '\nIn JSON a metavariable works only inside a string: `"name": "$N"` captures a string value\'s content, `"$K": 1` a key; other values are written out (`"port": 8080`), or search the file as text.'
        : ""),
  );
}

/**
 * A compound statement's header written without its body (`def $F($$$A):`, `if ($C)`, `fn $F($$$P)`) — it did not
 * parse, or parsed only as a bodiless signature — completed with a body metavariable, when that parses as more.
 */
function withBody(grammar: Grammar, trimmed: string, chosen: Chosen | undefined, body: string) {
  if (!grammar.body || !HEADER_WORDS.has(/^[A-Za-z_]+/.exec(trimmed)?.[0] ?? "")) return undefined;
  // A header that parsed whole stays as it is, unless only as a bodiless signature or by taking in the context's
  // own text (C's `if ($C)` became `if ($C);`, an if with an empty body).
  // Where the body is captured (ast_edit), a declaration whose body is optional and left out is completed too: as
  // written it matches the functions with bodies as well, and a rewrite of it would drop them.
  const signature =
    chosen && (bodiless(grammar, chosen.node) || (body !== "_" && bodyLeftOut(grammar, chosen.node)));
  if (chosen?.exact && !signature) return undefined;
  const text = `${trimmed}${grammar.body.replace(BODY_VAR, `$$$$$$${body}`)}`;
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
  const problems: string[] = [];
  let fallback: Chosen | undefined;
  for (const rung of grammar.ladder) {
    // A function replacement: in a string one, `$$` would turn into `$` and break $$$ metavariables.
    const context = rung.context.replace(HOLE, () => trimmed);
    const offset = rung.context.indexOf(HOLE);
    const expanded = expand(context, grammar.expando);
    const root = parse(grammar.lang, expanded).root();
    const broken = firstBroken(root, tolerated);
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
    const exact = range.start.index === offset && range.end.index === offset + trimmed.length;
    const chosen = { compiled: build(trimmed, rung.name, context, kind), node, context, exact };
    if (grammar.implausible?.includes(kind)) {
      fallback ??= chosen;
      problems.push(`as ${article(rung.name)}: it reads as a ${kind}, which a pattern rarely means`);
      continue;
    }
    return { chosen, problems };
  }
  return fallback ? { chosen: fallback, problems } : { problems };
}

function build(pattern: string, rung: RungName, context: string, selector: string): CompiledPattern {
  const singles = new Set<string>();
  const multiples = new Set<string>();
  for (const m of pattern.matchAll(METAVAR)) {
    if (m[1] !== undefined && m[1] !== "_") multiples.add(m[1]);
    if (m[2] !== undefined && m[2] !== "_") singles.add(m[2]);
  }
  const withoutVars = pattern.replace(METAVAR, " ");
  const literals = [...new Set(withoutVars.match(/[\p{L}\p{N}_]{2,}/gu) ?? [])];
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
  return rung === "bare" ? "a bare fragment" : `${/^[aeiou]/.test(rung) ? "an" : "a"} ${rung}`;
}
