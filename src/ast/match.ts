/** Matching one file and turning ast-grep's nodes into the matches the tools report — shared by the main thread and
 * the search workers. */
import { readFileSync } from "node:fs";
import type { NapiConfig, SgNode } from "@ast-grep/napi";
import type { TreeCache } from "./tree-cache.js";

export interface AstMatch {
  readonly path: string;
  /** 1-based lines, 1-based column of the start. */
  readonly line: number;
  readonly endLine: number;
  readonly column: number;
  /** UTF-16 offsets into the file's text. */
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** $X → its text; $$$X → the source from its first to its last node. */
  readonly captures: Record<string, string>;
}

export interface MatchSpec {
  readonly singles: readonly string[];
  readonly multiples: readonly string[];
  readonly literals: readonly string[];
}

export function toMatch(rel: string, text: string, node: SgNode, spec: MatchSpec): AstMatch {
  const range = node.range();
  const captures: Record<string, string> = {};
  for (const name of spec.singles) {
    const captured = node.getMatch(name);
    if (captured) captures[name] = captured.text();
  }
  for (const name of spec.multiples) {
    const nodes = node.getMultipleMatches(name);
    const first = nodes[0];
    const last = nodes[nodes.length - 1];
    captures[name] = first && last ? text.slice(first.range().start.index, last.range().end.index) : "";
  }
  return {
    path: rel,
    line: range.start.line + 1,
    endLine: range.end.line + 1,
    column: range.start.column + 1,
    start: range.start.index,
    end: range.end.index,
    text: node.text(),
    captures,
  };
}

/** A file lacking one of the pattern's words cannot match: it is never parsed (parsing is the whole cost). */
export function mayMatch(text: string, spec: MatchSpec): boolean {
  return spec.literals.every((word) => text.includes(word));
}

export interface FileRef {
  readonly abs: string;
  readonly rel: string;
}

export interface FileMatches {
  readonly file: FileRef;
  readonly text: string;
  /** The first `keep` matches (all, for a rewrite); `total` counts them all. */
  readonly matches: AstMatch[];
  readonly total: number;
}

/** What one file cost: nothing (unreadable, or lacking the pattern's words), a reused tree, or a parse. */
export type FileCost = "skipped" | "reused" | "parsed";

/**
 * Reads, prefilters and matches one file; `search` names the search, for the tree cache's eviction. `held`: whether
 * the cache holds the file's tree afterwards (absent when the file was skipped: what it held is unchanged).
 */
export function matchFile(
  file: FileRef,
  lang: string,
  rule: NapiConfig,
  spec: MatchSpec,
  trees: TreeCache,
  search: number,
  keep = Number.POSITIVE_INFINITY,
): { cost: FileCost; held?: boolean; found?: FileMatches } {
  let text: string;
  try {
    text = readFileSync(file.abs, "utf8");
  } catch {
    trees.forget(lang, file.abs);
    return { cost: "skipped" };
  }
  if (!mayMatch(text, spec)) return { cost: "skipped" };
  const { root, reused, held } = trees.tree(lang, file.abs, text, search);
  const nodes = root.root().findAll(rule);
  const cost = reused ? "reused" : "parsed";
  if (!nodes.length) return { cost, held };
  // Only the matches that can be shown become answers (a dense search of one file had 40,000, each several napi calls).
  const matches = nodes.slice(0, keep).map((n) => toMatch(file.rel, text, n, spec));
  return { cost, held, found: { file, text, matches, total: nodes.length } };
}
