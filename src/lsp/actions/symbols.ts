/** symbols: a file's outline, or a workspace search that names which servers searched and which did not, and why. */
import type {
  DocumentSymbol,
  Range,
  SymbolInformation,
  WorkspaceSymbol,
} from "vscode-languageserver-protocol";
import { ToolError } from "../../errors.js";
import { confineExisting } from "../../files/paths.js";
import { plural } from "../../files/text.js";
import { shownPath, visibleLine } from "../../files/visible.js";
import { uriPath } from "../diagnostics/diagnostics.js";
import type { LspAnswer, SymbolRow } from "../schema.js";
import type { LspClient } from "../server/client.js";
import { clientOf, type LspBase, requireCapability, snippetReader } from "../target.js";
import { capped, openFilesOnly, stillIndexing, withCompleteness } from "./completeness.js";
import { SYMBOL_KINDS } from "./format.js";

const MAX_WORKSPACE_SYMBOLS = 100;
const MAX_DOCUMENT_SYMBOLS = 200;

export async function symbols(
  base: LspBase,
  args: { file?: string | undefined; query?: string | undefined },
  signal: AbortSignal,
): Promise<LspAnswer> {
  return args.file !== undefined && args.query === undefined
    ? outline(base, args.file, signal)
    : workspaceSymbols(base, args, signal);
}

/** A file's symbols, nested names joined with dots. */
async function outline(base: LspBase, file: string, signal: AbortSignal): Promise<LspAnswer> {
  const confined = await confineExisting(base.workdir, file, "file");
  const { client, languageId } = await base.supervisor.clientFor(confined.real, confined.rel);
  requireCapability(client, "symbols_file");
  const { uri } = await client.sync(confined.real, languageId);
  const raw = await client.request<(DocumentSymbol | SymbolInformation)[] | null>(
    "textDocument/documentSymbol",
    { textDocument: { uri } },
    base.supervisor.timeouts.requestMs,
    signal,
  );
  const rows = flattenSymbols(raw ?? [], confined.rel);
  const shown = rows.slice(0, MAX_DOCUMENT_SYMBOLS);
  const count = rows.length > shown.length ? ` (showing ${shown.length} of ${rows.length})` : "";
  return withCompleteness(
    {
      text: `${plural(rows.length, "symbol")}${count}:\n${shown.map((s) => `${s.line}  ${visibleLine(s.name)} (${s.kind})`).join("\n")}`,
      structured: { action: "symbols", server: client.spec.id, symbols: shown, total: rows.length },
    },
    // A file's outline comes from the file itself: a server's indexing does not change it.
    [capped(shown.length, rows.length, "symbols")],
  );
}

/** A workspace search, by the file's server or every running one; the answer names which searched and which not. */
async function workspaceSymbols(
  base: LspBase,
  args: { file?: string | undefined; query?: string | undefined },
  signal: AbortSignal,
): Promise<LspAnswer> {
  const reader = snippetReader(base);
  const query = args.query ?? "";
  // With a file, its server (started if need be) answers the search; without, every running server does.
  const clients =
    args.file !== undefined
      ? [(await clientOf(base, args.file)).client]
      : await base.supervisor.liveClients();
  if (clients.length === 0) {
    throw new ToolError(
      "No language server is running yet, and a workspace symbol search needs one: pass `file` (a file of the project to search) along with `query`, or call another action on a file first.",
    );
  }
  const rows: SymbolRow[] = [];
  // The answer names its scope: which servers searched, and which did not and why — a search of the running
  // servers only must not read as "no such symbol in the project".
  const searched: string[] = [];
  const notSearched: string[] = [];
  const label = (c: LspClient) => `${c.spec.id} @ ${shownPath(reader.rel(c.root) || ".")}`;
  for (const client of clients) {
    if (!client.capabilities.workspaceSymbolProvider) {
      notSearched.push(`${label(client)} has no workspace symbol search`);
      continue;
    }
    let raw: (SymbolInformation | WorkspaceSymbol)[] | null;
    try {
      raw = await client.request<(SymbolInformation | WorkspaceSymbol)[] | null>(
        "workspace/symbol",
        { query },
        base.supervisor.timeouts.requestMs,
        signal,
      );
    } catch (error) {
      notSearched.push(`${label(client)} failed: ${(error as Error).message}`);
      continue;
    }
    searched.push(label(client));
    for (const s of raw ?? []) {
      const loc = s.location;
      const file = uriPath(loc.uri);
      rows.push({
        name: s.name,
        kind: SYMBOL_KINDS[s.kind] ?? "symbol",
        path: reader.rel(file),
        ...("range" in loc ? spanOf(loc.range) : { line: 0 }),
        ...(s.containerName ? { container: s.containerName } : {}),
      });
    }
  }
  if (args.file === undefined) notSearched.push(...notRunning(base, clients));
  const inWorkdir = rows.filter((r) => !r.path.startsWith("/"));
  const shown = inWorkdir.slice(0, MAX_WORKSPACE_SYMBOLS);
  const count = inWorkdir.length > shown.length ? ` (showing ${shown.length} of ${inWorkdir.length})` : "";
  const by = searched.length ? `searched by ${searched.join(", ")}` : "no server could search";
  const lines = shown.map(
    (s) =>
      `${shownPath(s.path)}:${s.line}  ${visibleLine(s.name)} (${s.kind}${s.container ? ` in ${visibleLine(s.container)}` : ""})`,
  );
  const answered = clients.filter((c) => searched.includes(label(c)));
  return withCompleteness(
    {
      text: [
        `${plural(inWorkdir.length, "symbol")}${count}, ${by}${lines.length ? ":" : "."}`,
        ...lines,
        ...(notSearched.length ? [`Not searched: ${notSearched.join("; ")}.`] : []),
      ].join("\n"),
      structured: {
        action: "symbols",
        symbols: shown,
        total: inWorkdir.length,
        searched,
        ...(notSearched.length ? { not_searched: notSearched } : {}),
      },
    },
    [
      capped(shown.length, inWorkdir.length, "symbols"),
      notSearched.length > 0 && "not every server of the project searched (see Not searched above)",
      stillIndexing(answered),
      ...answered.map(openFilesOnly),
    ],
  );
}

function flattenSymbols(raw: (DocumentSymbol | SymbolInformation)[], rel: string, prefix = ""): SymbolRow[] {
  const rows: SymbolRow[] = [];
  for (const s of raw) {
    if ("selectionRange" in s) {
      const name = prefix ? `${prefix}.${s.name}` : s.name;
      rows.push({
        name,
        kind: SYMBOL_KINDS[s.kind] ?? "symbol",
        path: rel,
        ...spanOf(s.selectionRange),
      });
      if (s.children?.length) for (const row of flattenSymbols(s.children, rel, name)) rows.push(row);
    } else {
      const name = s.containerName ? `${s.containerName}.${s.name}` : s.name;
      rows.push({
        name,
        kind: SYMBOL_KINDS[s.kind] ?? "symbol",
        path: rel,
        ...spanOf(s.location.range),
      });
    }
  }
  return rows;
}

/** An LSP range as a row's 1-based line and column and its exclusive end, as every other location carries them. */
function spanOf(range: Range): Pick<SymbolRow, "line" | "column" | "end"> {
  return {
    line: range.start.line + 1,
    column: range.start.character + 1,
    end: { line: range.end.line + 1, column: range.end.character + 1 },
  };
}

/** Servers that could search but are not running: said, with how to search there too. */
function notRunning(base: LspBase, clients: readonly LspClient[]): string[] {
  const idle = base.supervisor
    .status()
    .available.filter((a) => !clients.some((c) => c.spec.id === a.id))
    .filter((a) => base.supervisor.specs.find((s) => s.id === a.id)?.searchesWorkspace !== false)
    .map((a) => `${a.id} (${a.roots.join(", ")})`);
  return idle.length
    ? [
        `${idle.join(", ")} ${idle.length === 1 ? "is" : "are"} not running — pass \`file\` (a file of that language) with \`query\` to search there too`,
      ]
    : [];
}
