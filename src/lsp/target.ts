/**
 * What every feature of the lsp resource shares: the run's servers and journal, and the target of an action — the
 * file's server, its document synced, and the symbol's position found from a line and a name.
 */
import { pathToFileURL } from "node:url";
import type { ServerCapabilities } from "vscode-languageserver-protocol";
import { ToolError } from "../errors.js";
import { libraryRoots } from "../files/library-roots.js";
import { fileText } from "../files/lines.js";
import { type ConfinedPath, confine, confineExisting } from "../files/paths.js";
import { notRegularMessage, specialKindOf } from "../files/regular.js";
import { SnippetReader } from "./actions/format.js";
import { analyse, familyOf, locateSymbol, toEncoding } from "./actions/positions.js";
import type { DiagnosticsJournal } from "./diagnostics/journal.js";
import type { LspTarget, NavigationAction } from "./schema.js";
import type { LspClient } from "./server/client.js";
import type { LspSupervisor } from "./server/supervisor.js";

export interface LspBase {
  readonly workdir: string;
  readonly supervisor: LspSupervisor;
  readonly journal: DiagnosticsJournal;
  /** What an untrusted workspace changes for `server` (rust-analyzer: no cargo check), the first time it is asked. */
  trustNoteOnce(server: string): string | undefined;
}

/** An action's target: the file's server and language, its path, and the symbol's position as the server counts. */
export interface Target {
  readonly client: LspClient;
  readonly languageId: string;
  readonly file: string;
  readonly position: { line: number; character: number };
  readonly target: LspTarget;
  /** The file's lines as the server now has them: the ranges it answers are in this text. */
  readonly lines: readonly string[];
}

/** The pause between two asks of a server that may still be analysing the workspace (its answers are confirmed). */
export const CONFIRM_PAUSE_MS = 300;

/**
 * Reads snippets for answers from the workdir and the run's library roots only; with `t`, the target's file from the
 * text just synced (it was confined to the workdir).
 */
export function snippetReader(base: LspBase, t?: Target): SnippetReader {
  const reader = new SnippetReader(base.workdir, libraryRoots(base.supervisor.home));
  if (t) reader.knows(t.file, t.lines);
  return reader;
}

export const CAPABILITY: Record<
  NavigationAction | "symbols_file" | "symbols_query" | "rename",
  keyof ServerCapabilities
> = {
  definition: "definitionProvider",
  type_definition: "typeDefinitionProvider",
  implementation: "implementationProvider",
  references: "referencesProvider",
  hover: "hoverProvider",
  code_actions: "codeActionProvider",
  call_hierarchy: "callHierarchyProvider",
  type_hierarchy: "typeHierarchyProvider",
  symbols_file: "documentSymbolProvider",
  symbols_query: "workspaceSymbolProvider",
  rename: "renameProvider",
};

/** The file an action addresses, inside the workdir, and its text as it is now. */
export async function targetFile(
  workdir: string,
  file: string,
): Promise<{ confined: ConfinedPath; text: string }> {
  const confined = await confine(workdir, file, "file");
  const text = fileText(confined.real);
  if (text === undefined) {
    const kind = specialKindOf(confined.real);
    throw new ToolError(
      kind
        ? notRegularMessage(`\`file\` ${confined.shown}`, kind, "lsp")
        : `\`file\` ${confined.shown} does not exist or is not readable.`,
    );
  }
  return { confined, text };
}

/** Finds the file's server and the symbol's position on the line; the document is synced first. */
export async function findTarget(
  base: LspBase,
  file: string,
  line: number | undefined,
  symbol: string,
): Promise<Target> {
  const { confined, text } = await targetFile(base.workdir, file);
  const { client, languageId } = await base.supervisor.clientFor(confined.real, confined.rel);
  const family = familyOf(languageId);
  const located = locateSymbol(text, line, symbol, family);
  const sync = await client.sync(confined.real, languageId, text);
  const { lines } = analyse(text, family);
  const lineText = lines[located.line] ?? "";
  const position = {
    line: located.line,
    character: toEncoding(lineText, located.character, client.encoding),
  };
  const target: LspTarget = {
    path: confined.rel,
    line: located.line + 1,
    column: located.character + 1,
    identifier: located.identifier,
    occurrence: located.occurrence,
    of: located.of,
    ...(located.note ? { note: located.note } : {}),
  };
  await warmedUp(base, client, sync);
  return { client, languageId, file: confined.real, position, target, lines };
}

/**
 * The first document a fresh server sees starts its project load (typescript-language-server: "Initializing JS/TS
 * language features", ~2 s; rust-analyzer's crate graph), and answers given meanwhile are empty or `any`. Waits for
 * it, once per start.
 */
export async function warmedUp(
  base: LspBase,
  client: LspClient,
  sync: { changed: boolean; version: number },
): Promise<void> {
  const warmup = client.spec.warmupMs;
  if (warmup && sync.changed && sync.version === 1 && client.documents.size === 1) {
    await client.settled(base.supervisor.timeouts.requestMs, warmup);
  }
}

/** Refuses an action the server does not advertise; with `others`, names the running servers that have it. */
export function requireCapability(
  client: LspClient,
  action: keyof typeof CAPABILITY,
  others?: readonly LspClient[],
): void {
  const capability = CAPABILITY[action];
  if (client.capabilities[capability]) return;
  const having = [...new Set((others ?? []).filter((c) => c.capabilities[capability]).map((c) => c.spec.id))];
  const elsewhere = !others
    ? " Try another action."
    : having.length
      ? ` Of the servers running here, ${having.join(", ")} ${having.length === 1 ? "has" : "have"} it (for ${having.length === 1 ? "its" : "their"} own files).`
      : " None of the servers running here has it.";
  throw new ToolError(
    `${client.spec.name} does not support ${action.replace("_", " ")} (it does not advertise ${capability}).${elsewhere}`,
  );
}

/**
 * What an answer says of its target beyond what the call gave: the line found when none was given, the whole name
 * a part of one stands for, which of several occurrences on the line was taken. Empty when the call said it all.
 */
export function targetNote(t: LspTarget): string {
  const parts = t.note ? [t.note] : [];
  if (t.of > 1)
    parts.push(
      `\`${t.identifier}\` occurs ${t.of} times on line ${t.line}: the first (column ${t.column}) was taken; for another, give \`symbol\` with what precedes it`,
    );
  return parts.length ? `(${parts.join("; ")})` : "";
}

/** As the documents are keyed: `%`, `#`, `?` and control characters in a name percent-encoded (a URL parse would cut or drop them). */
export function fileUri(file: string): string {
  return pathToFileURL(file).href;
}

/** The server of a file that must exist (no symbol to find on it). */
export async function clientOf(
  base: LspBase,
  file: string,
): Promise<{ client: LspClient; languageId: string }> {
  const confined = await confineExisting(base.workdir, file, "file");
  return base.supervisor.clientFor(confined.real, confined.rel);
}
