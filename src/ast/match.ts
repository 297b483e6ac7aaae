/** Turning an ast-grep node into a match the tools report — shared by the main thread and the search workers. */
import type { SgNode } from "@ast-grep/napi";

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
