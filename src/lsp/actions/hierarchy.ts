/**
 * call_hierarchy and type_hierarchy: the item at the target (prepare…), then its callers or callees, supertypes or
 * subtypes, level by level to the depth asked, as one tree — each item once (a cycle or a second path to it says
 * "shown above"), items outside the workdir named but not followed, the requests bounded.
 */
import type {
  CallHierarchyIncomingCall,
  CallHierarchyItem,
  CallHierarchyOutgoingCall,
  Range,
  TypeHierarchyItem,
} from "vscode-languageserver-protocol";
import { ToolError } from "../../errors.js";
import { within } from "../../files/library-roots.js";
import { plural } from "../../files/text.js";
import { shownPath, visibleLine } from "../../files/visible.js";
import { uriPath } from "../diagnostics/diagnostics.js";
import type { HierarchyDirection, HierarchyRow, LspAnswer } from "../schema.js";
import { ServerRefusal } from "../server/request-errors.js";
import {
  CONFIRM_PAUSE_MS,
  fileUri,
  type LspBase,
  snippetReader,
  type Target,
  targetNote,
} from "../target.js";
import { capped, openFilesOnly, stillIndexing, withCompleteness } from "./completeness.js";
import { NOT_SHOWN, type SnippetReader, SYMBOL_KINDS } from "./format.js";

/** Items shown in one answer, call sites under each, and requests made for one answer. */
const MAX_ROWS = 50;
const MAX_SITES = 3;
const MAX_REQUESTS = 40;

type Item = CallHierarchyItem | TypeHierarchyItem;

interface Node {
  readonly item: Item;
  /** Where the calls are: in the caller's file (incoming) or the parent's (outgoing); none for types. */
  readonly sites: readonly Range[];
  readonly sitesUri?: string;
  children: Node[];
  /** Why its children are not listed. */
  cut?: "shown above" | "not followed: outside the workdir" | "not followed: request budget spent";
}

const METHODS: Record<HierarchyDirection, { prepare: string; method: string }> = {
  incoming: { prepare: "textDocument/prepareCallHierarchy", method: "callHierarchy/incomingCalls" },
  outgoing: { prepare: "textDocument/prepareCallHierarchy", method: "callHierarchy/outgoingCalls" },
  supertypes: { prepare: "textDocument/prepareTypeHierarchy", method: "typeHierarchy/supertypes" },
  subtypes: { prepare: "textDocument/prepareTypeHierarchy", method: "typeHierarchy/subtypes" },
};

/** The hierarchy at the target, `depth` levels deep. */
export async function hierarchy(
  base: LspBase,
  t: Target,
  direction: HierarchyDirection,
  depth: number,
  signal: AbortSignal,
): Promise<LspAnswer> {
  const action = direction === "incoming" || direction === "outgoing" ? "call_hierarchy" : "type_hierarchy";
  const timeout = base.supervisor.timeouts.requestMs;
  const ask = <T>(method: string, params: unknown) =>
    t.client.request<T>(method, params, timeout, signal).catch((error: unknown) => {
      throw notImplemented(error, t, direction) ?? error;
    });
  const { prepare, method } = METHODS[direction];
  const textDocument = { uri: t.client.documents.get(fileUri(t.file))?.uri ?? fileUri(t.file) };
  let items = await ask<Item[] | null>(prepare, { textDocument, position: t.position });
  if (!items?.length && t.client.progressTitles.length && (await t.client.settled(timeout, 0, signal)))
    items = await ask<Item[] | null>(prepare, { textDocument, position: t.position });
  const server = t.client.spec.id;
  const label = action.replace("_", " ");
  if (!items?.length)
    throw new ToolError(
      `${server} has no ${label} item for \`${t.target.identifier}\` at ${shownPath(t.target.path)}:${t.target.line}: ${action === "call_hierarchy" ? "it is not a function, method or constructor" : "it is not a class, interface or other type"} as the server sees it. Address a ${action === "call_hierarchy" ? "function's" : "type's"} name, where it is defined or used.`,
    );
  // A server started moments ago may answer from a half-analysed workspace (pyright, as for references): where the
  // catalog says so, the first level of callers is asked again until two answers agree.
  const confirmMs = t.client.spec.confirmReferencesMs;
  const young = direction === "incoming" && confirmMs && performance.now() - t.client.startedAt < confirmMs;
  const next = async (item: Item, level: number) => {
    let raw = await ask<unknown[] | null>(method, { item });
    const deadline = performance.now() + timeout;
    for (let previous = -1; young && level === 0 && (raw?.length ?? 0) !== previous; ) {
      if (performance.now() > deadline) break;
      previous = raw?.length ?? 0;
      await new Promise((r) => setTimeout(r, CONFIRM_PAUSE_MS));
      raw = await ask<unknown[] | null>(method, { item });
    }
    return raw;
  };
  const walk = new Walk(base.workdir, direction, next);
  const roots = await walk.expand(
    items.map((item) => ({ item, sites: [], children: [] })),
    depth,
  );
  const answer = render(snippetReader(base, t), direction, depth, roots, server, t);
  const rows = answer.structured.hierarchy ?? [];
  const unfollowed = rows.filter((r) => r.not_followed === "not followed: request budget spent").length;
  return withCompleteness(answer, [
    capped(rows.length, answer.structured.total, "items"),
    unfollowed > 0 &&
      `${unfollowed} item${unfollowed === 1 ? "'s" : "s'"} own ${NOUN[direction][1].toLowerCase()} not asked for (the request budget was spent)`,
    stillIndexing([t.client]),
    direction === "incoming" || direction === "subtypes" ? openFilesOnly(t.client) : undefined,
  ]);
}

/** A server that advertises the capability yet answers "method not found" (clangd 14: no outgoing calls, and only its own pre-standard type hierarchy). */
function notImplemented(error: unknown, t: Target, direction: HierarchyDirection): ToolError | undefined {
  if (!(error instanceof ServerRefusal) || error.code !== -32601) return undefined;
  const number = /\d+(\.\d+)+/.exec(t.client.serverVersion ?? "")?.[0];
  const version = number ? ` ${number}` : "";
  const other = {
    incoming: "outgoing",
    outgoing: "incoming",
    supertypes: "subtypes",
    subtypes: "supertypes",
  }[direction];
  const alternative = error.method.startsWith("textDocument/prepare")
    ? "Use references or implementation instead."
    : `The ${other} direction may still answer.`;
  return new ToolError(
    `${t.client.spec.name}${version} does not implement ${error.method} (it answered "method not found", though it advertises ${direction === "incoming" || direction === "outgoing" ? "callHierarchyProvider" : "typeHierarchyProvider"}). ${alternative}`,
  );
}

/**
 * Follows the hierarchy level by level, each item at most once, within the request budget. The items at the target
 * are always asked for (a library function's callers here are the question); below them, library items are named,
 * not followed.
 */
class Walk {
  readonly #seen = new Set<string>();
  #requests = 0;
  constructor(
    readonly workdir: string,
    readonly direction: HierarchyDirection,
    readonly next: (item: Item, level: number) => Promise<unknown[] | null>,
  ) {}

  async expand(roots: Node[], depth: number): Promise<Node[]> {
    let level = roots;
    for (const root of roots) this.#seen.add(keyOf(root.item));
    for (let d = 0; d < depth && level.length; d++) {
      const open = level.filter((node) => this.#open(node, d));
      await Promise.all(open.map(async (node) => (node.children = await this.#children(node, d))));
      level = open.flatMap((node) => node.children);
    }
    return roots;
  }

  /** Whether a node's children are asked for; otherwise it says why not. */
  #open(node: Node, level: number): boolean {
    if (node.cut) return false;
    // Inside the workdir by real path, as answers quote.
    if (level > 0 && !within(uriPath(node.item.uri), [this.workdir])) {
      node.cut = "not followed: outside the workdir";
      return false;
    }
    if (this.#requests >= MAX_REQUESTS) {
      node.cut = "not followed: request budget spent";
      return false;
    }
    this.#requests++;
    return true;
  }

  async #children(node: Node, level: number): Promise<Node[]> {
    const raw = (await this.next(node.item, level)) ?? [];
    const children = raw.map((entry): Node => {
      if (this.direction === "incoming") {
        const call = entry as CallHierarchyIncomingCall;
        return { item: call.from, sites: distinct(call.fromRanges), sitesUri: call.from.uri, children: [] };
      }
      if (this.direction === "outgoing") {
        const call = entry as CallHierarchyOutgoingCall;
        return { item: call.to, sites: distinct(call.fromRanges), sitesUri: node.item.uri, children: [] };
      }
      return { item: entry as TypeHierarchyItem, sites: [], children: [] };
    });
    // Each key made once: a comparison that made both would make ~10 per item of a wide level.
    const keyed = children.map((child) => ({ key: keyOf(child.item), child }));
    keyed.sort((a, b) => ORDER.compare(a.key, b.key));
    for (const { key, child } of keyed) {
      if (this.#seen.has(key)) child.cut = "shown above";
      this.#seen.add(key);
    }
    return keyed.map(({ child }) => child);
  }
}

/** A call's ranges, each once: tsgo 7.0 lists every outgoing call site twice. */
function distinct(ranges: readonly Range[]): readonly Range[] {
  if (ranges.length < 2) return ranges;
  const seen = new Set<string>();
  return ranges.filter((r) => {
    const key = `${r.start.line}:${r.start.character}:${r.end.line}:${r.end.character}`;
    return !seen.has(key) && Boolean(seen.add(key));
  });
}

/** Items in file order, lines as numbers (one collator: localeCompare with options builds one per comparison). */
const ORDER = new Intl.Collator(undefined, { numeric: true });

function keyOf(item: Item): string {
  const at = item.selectionRange.start;
  return `${item.uri}#${String(at.line).padStart(7, "0")}:${at.character}`;
}

const NOUN: Record<HierarchyDirection, [string, string]> = {
  incoming: ["caller", "Callers"],
  outgoing: ["callee", "Callees"],
  supertypes: ["supertype", "Supertypes"],
  subtypes: ["subtype", "Subtypes"],
};

/** The tree as text (preorder, two spaces a level) and as flat rows for the harness. */
function render(
  reader: SnippetReader,
  direction: HierarchyDirection,
  depth: number,
  roots: readonly Node[],
  server: string,
  t: Target,
): LspAnswer {
  const rows: HierarchyRow[] = [];
  const lines: string[] = [];
  let total = 0;
  let shown = 0;
  const visit = (node: Node, level: number, parent: number | undefined, row?: HierarchyRow) => {
    total++;
    if (shown >= MAX_ROWS) return;
    shown++;
    const index = rows.length;
    rows.push(row ?? rowOf(reader, node, level, parent));
    if (level > 0) lines.push(itemLine(reader, node, level));
    lines.push(...siteLines(reader, node, level));
    for (const child of node.children) visit(child, level + 1, index);
  };
  const note = targetNote(t.target);
  for (const root of roots) {
    const row = rowOf(reader, root, 0, undefined);
    lines.push(
      `${NOUN[direction][1]} of \`${visibleLine(row.name)}\` (${row.kind}, ${shownPath(row.path)}:${row.line})${depth > 1 ? `, ${depth} levels` : ""}: ${countOf(root, direction)}${note ? ` ${note}` : ""}`,
    );
    visit(root, 0, undefined, row);
  }
  const more = total > shown ? [`(showing ${shown} of ${total} items)`] : [];
  return {
    text: [...lines, ...more].join("\n"),
    structured: {
      action: direction === "incoming" || direction === "outgoing" ? "call_hierarchy" : "type_hierarchy",
      server,
      target: t.target,
      hierarchy: rows,
      total,
    },
  };
}

function countOf(root: Node, direction: HierarchyDirection): string {
  const n = root.children.length;
  const sites = root.children.reduce((sum, c) => sum + c.sites.length, 0);
  const calls = direction === "incoming" || direction === "outgoing" ? `, ${plural(sites, "call site")}` : "";
  if (n === 0) return `none${root.cut ? ` (${root.cut})` : ""}`;
  return `${plural(n, NOUN[direction][0])}${calls}`;
}

function kindOf(item: Item): string {
  return SYMBOL_KINDS[item.kind] || "symbol";
}

function itemLine(reader: SnippetReader, node: Node, level: number): string {
  const indent = "  ".repeat(level);
  const file = reader.rel(uriPath(node.item.uri));
  const at = `${shownPath(file)}:${node.item.selectionRange.start.line + 1}`;
  const calls = node.sites.length > 1 ? ` — ${node.sites.length} calls` : "";
  const name = nameOf(reader, node.item);
  // A module is named by its file (tsgo): the path is said once.
  const named = name === file ? "" : `${visibleLine(name)} `;
  return `${indent}${named}(${kindOf(node.item)}) ${at}${calls}${node.cut ? ` (${node.cut})` : ""}`;
}

/** The item's name; a server that names a module by its absolute path (tsgo) gets it relative to the workdir. */
function nameOf(reader: SnippetReader, item: Item): string {
  return item.name.startsWith("/") || /^[A-Za-z]:[\\/]/.test(item.name) ? reader.rel(item.name) : item.name;
}

/** The call sites under an item, in the file they are in (the caller's), a few at most. */
function siteLines(reader: SnippetReader, node: Node, level: number): string[] {
  if (!node.sitesUri || node.sites.length === 0) return [];
  const file = uriPath(node.sitesUri);
  const indent = "  ".repeat(level + 1);
  const lines = [...new Set(node.sites.map((r) => r.start.line))].sort((a, b) => a - b);
  const columnOn = (line0: number) => node.sites.find((r) => r.start.line === line0)?.start.character ?? 0;
  const quote = (line0: number) =>
    reader.shows(file) ? reader.line(file, line0, columnOn(line0)) : NOT_SHOWN;
  const rows = lines.slice(0, MAX_SITES).map((l) => `${indent}${l + 1}  ${quote(l)}`);
  if (lines.length > MAX_SITES) rows.push(`${indent}+${plural(lines.length - MAX_SITES, "more line")}`);
  return rows;
}

function rowOf(reader: SnippetReader, node: Node, level: number, parent: number | undefined): HierarchyRow {
  return {
    depth: level,
    name: nameOf(reader, node.item),
    kind: kindOf(node.item),
    path: reader.rel(uriPath(node.item.uri)),
    line: node.item.selectionRange.start.line + 1,
    ...(parent === undefined ? {} : { parent }),
    ...(node.sitesUri ? { sites: node.sites.map((r) => r.start.line + 1) } : {}),
    ...(node.cut ? { not_followed: node.cut } : {}),
  };
}
