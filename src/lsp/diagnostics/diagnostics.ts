/**
 * Fresh diagnostics for one file, by what the server can do: pull (textDocument/diagnostic) when advertised; else
 * wait for a push carrying the version just sent; else for a push newer than the sync plus a short settle. Every
 * answer says how fresh it is — a deadline that passed is "stale", never "clean".
 */
import { fileURLToPath } from "node:url";
import type { Diagnostic, DocumentDiagnosticReport } from "vscode-languageserver-protocol";
import { shownPath } from "../../files/visible.js";
import type { DiagnosticRow } from "../schema.js";
import type { LspClient } from "../server/client.js";
import { tsserverDiagnostics } from "./tsserver-diagnostics.js";

export type Freshness = "fresh" | "stale" | "not ready";

export interface FileDiagnostics {
  readonly file: string;
  readonly items: Diagnostic[];
  readonly freshness: Freshness;
  /** Why not fresh: the deadline, or the server's progress title while indexing. */
  readonly why?: string;
}

const SETTLE_MS = 150;

/** One wait for a file's diagnostics: what the steps below share. */
interface Wait {
  readonly client: LspClient;
  readonly file: string;
  readonly sync: Awaited<ReturnType<LspClient["sync"]>>;
  /** How long a check on save may take to begin (0: the server runs none). */
  readonly grace: number;
  readonly begunBeforeSave: number;
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
}

export async function diagnosticsOf(
  client: LspClient,
  file: string,
  languageId: string,
  timeoutMs: number,
  signal?: AbortSignal,
  /** The file was just written (diagnostics on write): a server's check on save runs for it even on first open. */
  written = false,
): Promise<FileDiagnostics> {
  // Counted before the save: a check that begins after it is this write's check.
  const begunBeforeSave = client.checksBegun;
  const sync = await client.sync(file, languageId, undefined, written);
  const grace = sync.saved ? (client.spec.checkOnSaveMs ?? 0) : 0;
  const w: Wait = {
    client,
    file,
    sync,
    grace,
    begunBeforeSave,
    deadline: Date.now() + timeoutMs,
    timeoutMs,
    signal,
  };
  if (client.supportsPull()) return pull(w);
  if (client.spec.diagnosticsFromTsserver) return fromTsserver(w);
  const pushed = await waitForPush(w);
  if (pushed) return pushed;
  if (signal?.aborted) throw signal.reason;
  if (client.state === "crashed") {
    return {
      file,
      items: [],
      freshness: "stale",
      why: `the ${client.spec.id} server crashed (${client.lastError ?? "no output"})`,
    };
  }
  return notFresh(
    client,
    file,
    client.pushed.get(sync.uri)?.items ?? [],
    `${client.spec.id} did not publish diagnostics for this version within ${timeoutMs} ms`,
  );
}

/**
 * A server that runs a checker on save (rust-analyzer: cargo check) publishes its own fast pass first: the answer
 * is fresh only once this save's check has begun and ended. Why not, when it is not.
 */
async function awaitCheck(w: Wait): Promise<string | undefined> {
  if (!w.grace) return undefined;
  const { idle, began } = await w.client.settledAfter(
    w.begunBeforeSave,
    Math.max(0, w.deadline - Date.now()),
    w.grace,
    w.signal,
  );
  if (!began)
    return `its check on save had not begun within ${w.grace} ms, so the checker's findings may be missing`;
  if (!idle) return `its check on save did not finish within ${w.timeoutMs} ms`;
  return undefined;
}

/** Asked of tsserver behind typescript-language-server, for the text it holds now (tsserver-diagnostics.ts). */
async function fromTsserver(w: Wait): Promise<FileDiagnostics> {
  try {
    const items = await tsserverDiagnostics(
      w.client,
      w.sync.uri,
      Math.max(1, w.deadline - Date.now()),
      w.signal,
    );
    return { file: w.file, items: meaningful(items), freshness: "fresh" };
  } catch (error) {
    if (w.signal?.aborted) throw error;
    const why = `tsserver did not answer for its diagnostics: ${(error as Error).message}`;
    return notFresh(w.client, w.file, w.client.pushed.get(w.sync.uri)?.items ?? [], why);
  }
}

/** Pull diagnostics, with what the server pushed for this version besides (a checker's findings). */
async function pull(w: Wait): Promise<FileDiagnostics> {
  const { client, file, sync } = w;
  try {
    const report = await client.request<DocumentDiagnosticReport>(
      "textDocument/diagnostic",
      { textDocument: { uri: sync.uri } },
      Math.max(1, w.deadline - Date.now()),
      w.signal,
    );
    const pulled = report.kind === "full" ? report.items : [];
    // The pull answers the fast pass; the checker's findings are pushed: wait for the check, then take both.
    const missing = await awaitCheck(w);
    if (missing) return notFresh(client, file, pulled, missing);
    const pushed = client.pushed.get(sync.uri);
    const alsoPushed =
      pushed && (pushed.version === undefined || pushed.version === sync.version) ? pushed.items : [];
    return { file, items: meaningful(union(pulled, alsoPushed)), freshness: "fresh" };
  } catch (error) {
    if (w.signal?.aborted) throw error;
    return notFresh(
      client,
      file,
      client.pushed.get(sync.uri)?.items ?? [],
      `the pull did not finish: ${(error as Error).message}`,
    );
  }
}

/** Pushed diagnostics for this version (or, unversioned, once the server is quiet); undefined when none came. */
async function waitForPush(w: Wait): Promise<FileDiagnostics | undefined> {
  const { client, file, sync, signal } = w;
  const abort = new AbortController();
  const stop = () => abort.abort();
  signal?.addEventListener("abort", stop, { once: true });
  const timer = setTimeout(stop, Math.max(0, w.deadline - Date.now()));
  try {
    for (;;) {
      // Servers such as pyright register pull diagnostics only after initialize, and then stop pushing.
      if (client.supportsPull()) return await pull(w);
      const pushed = client.pushed.get(sync.uri);
      if (pushed) {
        if (pushed.version !== undefined && pushed.version === sync.version) {
          // A publish made while the server is still loading the workspace, or before the check it runs on save,
          // is not its last word: wait for that work to end.
          const missing = await awaitCheck(w);
          if (
            !w.grace &&
            client.progressTitles.length &&
            !(await client.settled(Math.max(0, w.deadline - Date.now()), 0, signal))
          )
            return undefined;
          const latest = client.pushed.get(sync.uri) ?? pushed;
          if (missing) return notFresh(client, file, latest.items, missing);
          return { file, items: meaningful(latest.items), freshness: "fresh" };
        }
        if (pushed.version === undefined && (pushed.seq > sync.baseline || !sync.changed)) {
          // No version to match: wait until the server has been quiet for a moment.
          const settled = await quietFor(client, sync.uri, pushed.seq, abort.signal);
          const latest = client.pushed.get(sync.uri)!;
          if (settled) return { file, items: meaningful(latest.items), freshness: "fresh" };
        }
      }
      if (abort.signal.aborted) return undefined;
      await client.changed(abort.signal);
      if (client.state === "crashed" || client.state === "stopped") return undefined;
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", stop);
  }
}

function notFresh(client: LspClient, file: string, items: Diagnostic[], why: string): FileDiagnostics {
  const titles = client.progressTitles;
  if (client.state === "indexing" || titles.length) {
    return {
      file,
      items: meaningful(items),
      freshness: "not ready",
      why: `the server is busy: ${titles.join("; ") || "indexing"}`,
    };
  }
  return { file, items: meaningful(items), freshness: "stale", why };
}

async function quietFor(client: LspClient, uri: string, seq: number, signal: AbortSignal): Promise<boolean> {
  let last = seq;
  for (;;) {
    const quiet = new AbortController();
    const timer = setTimeout(() => quiet.abort(), SETTLE_MS);
    await client.changed(AbortSignal.any([quiet.signal, signal]));
    clearTimeout(timer);
    const now = client.pushed.get(uri)?.seq ?? last;
    if (quiet.signal.aborted && now === last) return true;
    if (signal.aborted) return false;
    last = now;
  }
}

/** Pulled and pushed diagnostics together, each finding once. */
function union(a: Diagnostic[], b: Diagnostic[]): Diagnostic[] {
  const key = (d: Diagnostic) =>
    `${d.range.start.line}:${d.range.start.character}:${d.severity}:${d.message}`;
  const seen = new Set(a.map(key));
  return [...a, ...b.filter((d) => !seen.has(key(d)))];
}

/** Hints (severity 4: unused, deprecated styling) are editor decorations, not findings. */
function meaningful(items: Diagnostic[]): Diagnostic[] {
  return items.filter((d) => (d.severity ?? 1) <= 3);
}

export const SEVERITY = ["", "error", "warning", "info", "hint"] as const;

export function severityName(d: Diagnostic): string {
  return SEVERITY[d.severity ?? 1] ?? "error";
}

export function uriPath(uri: string): string {
  // The common case without the URL parser (a references answer converts up to 50 of these per call): a POSIX
  // file URI with nothing percent-encoded, no query, no fragment and no dot segment is its path.
  if (POSIX && uri.startsWith("file:///") && !/[%?#]|\/\./.test(uri)) return uri.slice(7);
  return uri.startsWith("file:") ? fileURLToPath(uri) : uri;
}

const POSIX = process.platform !== "win32";

export function sortDiagnostics(items: Diagnostic[]): Diagnostic[] {
  return [...items].sort(
    (a, b) => (a.severity ?? 1) - (b.severity ?? 1) || a.range.start.line - b.range.start.line,
  );
}

/**
 * Text lines for diagnostics, the same finding at several lines of one file on one line ("methods `add` … are never
 * used" came three times from rust-analyzer, one per method): at most `limit` lines, and how many diagnostics they
 * cover. The order is the items' (the first occurrence places a group).
 */
/** A diagnostic's message as text: LSP 3.18 lets it be markup (sent only to clients that ask; runbound does not). */
export function messageText(d: Diagnostic): string {
  return typeof d.message === "string" ? d.message : d.message.value;
}

export function groupedDiagnosticLines(
  items: readonly { rel: string; d: Diagnostic }[],
  limit: number,
): { lines: string[]; covered: number } {
  const groups = new Map<string, { rel: string; d: Diagnostic; lines: number[] }>();
  for (const { rel, d } of items) {
    const key = JSON.stringify([rel, severityName(d), d.source, d.code, messageText(d).split("\n")[0]]);
    const group = groups.get(key);
    if (group) group.lines.push(d.range.start.line + 1);
    else groups.set(key, { rel, d, lines: [d.range.start.line + 1] });
  }
  const shown = [...groups.values()].slice(0, limit);
  return {
    lines: shown.map((g) => formatDiagnostic(g.rel, g.d, g.lines)),
    covered: shown.reduce((n, g) => n + g.lines.length, 0),
  };
}

export function formatDiagnostic(rel: string, d: Diagnostic, lines = [d.range.start.line + 1]): string {
  const code =
    d.code !== undefined && d.code !== ""
      ? ` [${d.source ? `${d.source} ` : ""}${d.code}]`
      : d.source
        ? ` [${d.source}]`
        : "";
  const message = messageText(d).split("\n")[0] ?? "";
  // Without a path (the answer is of one file): the lines, then the finding.
  const at = rel ? `${shownPath(rel)}:${lines.join(", ")} ` : `${lines.join(", ")}  `;
  return `${at}${severityName(d)}: ${message}${code}`;
}

export function diagnosticRow(rel: string, d: Diagnostic): DiagnosticRow {
  return {
    path: rel,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    severity: ["", "error", "warning", "info", "hint"][d.severity ?? 1] ?? "error",
    ...(d.code !== undefined ? { code: String(d.code) } : {}),
    ...(d.source ? { source: d.source } : {}),
    message: messageText(d),
  };
}
