/**
 * Cases for the differential test against ast-grep's CLI, generated from real code: every case is a pattern or a
 * rule built from the nodes of a file (its text; the same with a child replaced by a metavariable; a lone
 * metavariable narrowed by `kind`; relational rules with `stopBy`; `nthChild`; `constraints`; `utils`). Seeded, so a
 * failure is the same call every time.
 */
import { parse, type SgNode } from "@ast-grep/napi";
import type { Grammar } from "../../grammars/index.js";

export interface Case {
  readonly id: string;
  /** What ast_grep takes (and, with `language`, what the CLI's rule file holds). */
  readonly args: {
    readonly pattern?: string;
    readonly rule?: Record<string, unknown>;
    readonly constraints?: Record<string, unknown>;
    readonly utils?: Record<string, unknown>;
  };
}

/** A small, seeded generator (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function named(root: SgNode): SgNode[] {
  const all: SgNode[] = [];
  const visit = (node: SgNode) => {
    if (node.isNamed()) all.push(node);
    for (const child of node.children()) visit(child);
  };
  visit(root);
  return all;
}

function broken(node: SgNode): boolean {
  return node.kind() === "ERROR" || node.children().some(broken);
}

/** A node whose text makes a pattern: one line, not too short or long, no `$` or expando of its own. */
function patternText(node: SgNode, grammar: Grammar): string | undefined {
  const text = node.text();
  if (text.length < 3 || text.length > 60 || text.includes("\n") || text.includes("$")) return undefined;
  if (text.includes(grammar.expando) || !/[A-Za-z0-9]/.test(text) || broken(node)) return undefined;
  return text;
}

/** `count` cases of each shape from `sources` (file texts), in `grammar`. */
export function casesFor(grammar: Grammar, sources: readonly string[], seed: number, count: number): Case[] {
  const random = seeded(seed);
  const nodes = sources.flatMap((source) => named(parse(grammar.lang, source).root()));
  const kinds = [...new Set(nodes.map((n) => String(n.kind())).filter((k) => k !== "ERROR"))].sort();
  if (nodes.length === 0) return [];
  const cases: Case[] = [];
  const seen = new Set<string>();
  const add = (shape: string, args: Case["args"]) => {
    const key = JSON.stringify(args);
    if (seen.has(key)) return;
    seen.add(key);
    cases.push({ id: `${grammar.id}-${shape}-${cases.length}`, args });
  };
  const tries = (n: number, make: () => void) => {
    for (let i = 0; i < n * 20 && cases.length < target; i++) make();
  };
  let target = 0;

  target += count;
  tries(count, () => {
    const text = patternText(pick(random, nodes), grammar);
    if (text) add("text", { pattern: text });
  });

  target += count;
  tries(count, () => {
    const node = pick(random, nodes);
    const text = patternText(node, grammar);
    const leaves = node.children().filter((c) => c.isNamed() && c.children().length === 0);
    if (!text || leaves.length === 0) return;
    const leaf = pick(random, leaves);
    const start = leaf.range().start.index - node.range().start.index;
    const end = leaf.range().end.index - node.range().start.index;
    if (start < 0 || end <= start) return;
    const pattern = `${text.slice(0, start)}$A${text.slice(end)}`;
    // A lone metavariable is a `run -p` pattern (any node); a scan rule needs a kind with it: the kind shape has it.
    if (pattern === "$A") return;
    if (random() < 0.25) add("constrained", { pattern, constraints: { A: { regex: "^[a-z_]" } } });
    else add("metavariable", { pattern });
  });

  target += count;
  tries(count, () => add("kind", { rule: { kind: pick(random, kinds), pattern: "$X" } }));

  target += count;
  tries(count, () => {
    const node = pick(random, nodes);
    const parent = node.parent();
    const child = node.children().find((c) => c.isNamed());
    const sibling = node.next();
    const kind = String(node.kind());
    const shape = Math.floor(random() * 6);
    if (shape === 0 && parent?.parent())
      add("inside", { rule: { kind, inside: { kind: String(parent.parent()!.kind()), stopBy: "end" } } });
    else if (shape === 1 && parent)
      add("inside", { rule: { kind, inside: { kind: String(parent.kind()) } } });
    else if (shape === 2 && child) add("has", { rule: { kind, has: { kind: String(child.kind()) } } });
    else if (shape === 3 && child)
      add("has", { rule: { kind, has: { kind: String(child.kind()), stopBy: "end" } } });
    else if (shape === 4 && sibling?.isNamed())
      add("precedes", { rule: { kind, precedes: { kind: String(sibling.kind()) } } });
    else if (shape === 5 && node.prev()?.isNamed())
      add("follows", { rule: { kind, follows: { kind: String(node.prev()!.kind()), stopBy: "end" } } });
  });

  target += Math.ceil(count / 2);
  tries(Math.ceil(count / 2), () =>
    add("nthChild", { rule: { kind: pick(random, kinds), nthChild: 1 + Math.floor(random() * 3) } }),
  );

  target += Math.ceil(count / 2);
  tries(Math.ceil(count / 2), () =>
    add("utils", {
      rule: { all: [{ kind: pick(random, kinds) }, { matches: "first" }] },
      utils: { first: { not: { has: { kind: pick(random, kinds) } } } },
    }),
  );
  return cases;
}
