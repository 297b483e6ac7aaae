/**
 * The `lsp` resource of a run: the actions of the lsp tool, diagnostics on write (the after-write hook), and
 * the rename that lsp_rename applies. Servers come from the supervisor; positions from positions.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import type {
  CodeAction,
  Command,
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  ServerCapabilities,
  SymbolInformation,
  WorkspaceEdit,
  WorkspaceSymbol,
} from "vscode-languageserver-protocol";
import type { z } from "zod";
import { ToolError } from "../errors.js";
import { type Fingerprint, fingerprint, unchanged } from "../files/fingerprint.js";
import { confine, confineExisting } from "../files/paths.js";
import { rootsIn } from "../files/roots.js";
import { plural } from "../files/text.js";
import { visibleLine } from "../files/visible.js";
import type { ProcessTracker } from "../proc/tracker.js";
import { fanOut } from "../signals.js";
import type { LspClient } from "./client.js";
import { libraryRoots } from "./content-roots.js";
import {
  diagnosticsOf,
  type FileDiagnostics,
  groupedDiagnosticLines,
  messageText,
  sortDiagnostics,
  uriPath,
} from "./diagnostics.js";
import { asLocations, hoverText, NOT_SHOWN, type Place, SnippetReader, SYMBOL_KINDS } from "./format.js";
import { identifierProblem } from "./identifiers.js";
import { DiagnosticsJournal } from "./journal.js";
import { analyse, familyOf, locateSymbol, toEncoding } from "./positions.js";
import { runCheck } from "./project-check.js";
import type { afterWriteDiagnosticsSchema, diagnosticRowSchema } from "./schema.js";
import { type LspOptions, LspSupervisor } from "./supervisor.js";
import { type TrustAsked, WorkspaceTrust } from "./trust.js";
import { type AppliedEdit, applyWorkspaceEdit } from "./workspace-edit.js";

export type NavigationAction =
  | "definition"
  | "type_definition"
  | "implementation"
  | "references"
  | "hover"
  | "code_actions";

export interface LspTarget {
  path: string;
  line: number;
  column: number;
  identifier: string;
  occurrence: number;
  of: number;
  note?: string;
}

export interface SymbolRow {
  name: string;
  kind: string;
  path: string;
  line: number;
  container?: string;
}

export type DiagnosticRow = z.infer<typeof diagnosticRowSchema>;

export interface RenameAnswer {
  text: string;
  structured: { old_name: string; new_name: string } & Omit<AppliedEdit, "written">;
  written: string[];
}
export type AfterWriteDiagnostics = z.infer<typeof afterWriteDiagnosticsSchema>;

export interface LspAnswer {
  text: string;
  structured: {
    action: string;
    server?: string;
    target?: LspTarget;
    locations?: Place[];
    total?: number;
    hover?: string;
    symbols?: SymbolRow[];
    searched?: string[];
    not_searched?: string[];
    diagnostics?: DiagnosticRow[];
    freshness?: "fresh" | "stale" | "not ready";
    actions?: { title: string; kind?: string; preferred?: boolean }[];
  };
}

const MAX_REFERENCES = 50;
/** A server younger than this may still be analysing the workspace; its reference lists are confirmed. */
const CONFIRM_PAUSE_MS = 300;
const MAX_WORKSPACE_SYMBOLS = 100;
const MAX_DOCUMENT_SYMBOLS = 200;
const MAX_DIAGNOSTICS = 50;
const MAX_NOT_FRESH_LISTED = 5;

const CAPABILITY: Record<
  NavigationAction | "symbols_file" | "symbols_query" | "rename",
  keyof ServerCapabilities
> = {
  definition: "definitionProvider",
  type_definition: "typeDefinitionProvider",
  implementation: "implementationProvider",
  references: "referencesProvider",
  hover: "hoverProvider",
  code_actions: "codeActionProvider",
  symbols_file: "documentSymbolProvider",
  symbols_query: "workspaceSymbolProvider",
  rename: "renameProvider",
};

const METHOD: Record<Exclude<NavigationAction, "code_actions" | "hover">, string> = {
  definition: "textDocument/definition",
  type_definition: "textDocument/typeDefinition",
  implementation: "textDocument/implementation",
  references: "textDocument/references",
};

export class Lsp {
  readonly supervisor: LspSupervisor;
  readonly journal = new DiagnosticsJournal();
  readonly workdir: string;
  readonly #processes: ProcessTracker;
  /** Servers whose answer already told what an untrusted workspace changes for them. */
  readonly #toldTrust = new Set<string>();
  /** "Cannot serve" reasons already told after a write: said once per run, not on every write. */
  readonly #toldUnavailable = new Set<string>();

  constructor(
    workdir: string,
    processes: ProcessTracker,
    home: string,
    options: LspOptions = {},
    trust: WorkspaceTrust = new WorkspaceTrust(undefined),
  ) {
    this.workdir = workdir;
    this.#processes = processes;
    this.supervisor = new LspSupervisor(workdir, processes, home, options, trust);
  }

  /**
   * With trust "ask": asks once, before the first call that would run the project's code (`file`'s server, or any
   * for a request without a file); when trusted, the servers started without it start again.
   */
  async settleTrust(file: string | undefined, asked: TrustAsked): Promise<void> {
    if (!this.supervisor.trust.undecided) return;
    let what: string | undefined;
    if (file === undefined) what = this.supervisor.projectCodeAnywhere();
    else {
      const confined = await confine(this.workdir, file, "file").catch(() => undefined);
      what = confined && this.supervisor.projectCodeFor(confined.real);
    }
    if (await this.supervisor.trust.settle(what, asked)) await this.supervisor.trustChanged();
  }

  /** Finds the file's server and the symbol's position on the line; the document is synced first. */
  async target(file: string, line: number, symbol: string) {
    const confined = await confine(this.workdir, file, "file");
    let text: string;
    try {
      text = readText(confined.real);
    } catch {
      throw new ToolError(`\`file\` ${confined.rel} does not exist or is not readable.`);
    }
    const { client, languageId } = await this.supervisor.clientFor(confined.real, confined.rel);
    const family = familyOf(languageId);
    const located = locateSymbol(text, line, symbol, family);
    const sync = await client.sync(confined.real, languageId, text);
    const lineText = analyse(text, family).lines[located.line] ?? "";
    const position = {
      line: located.line,
      character: toEncoding(lineText, located.character, client.encoding),
    };
    const target: LspTarget = {
      path: confined.rel,
      line,
      column: located.character + 1,
      identifier: located.identifier,
      occurrence: located.occurrence,
      of: located.of,
      ...(located.note ? { note: located.note } : {}),
    };
    // The first document a fresh server sees starts its project load (typescript-language-server: "Initializing
    // JS/TS language features", ~2 s), and answers given meanwhile are empty or `any`. Wait for it, once per start.
    const warmup = client.spec.warmupMs;
    if (warmup && sync.changed && sync.version === 1 && client.documents.size === 1) {
      await client.settled(this.supervisor.timeouts.requestMs, warmup);
    }
    return { client, languageId, file: confined.real, position, target };
  }

  /** An action's answer, told once per server what an untrusted workspace changes for it. */
  async navigate(...args: Parameters<Lsp["navigateUntold"]>): Promise<LspAnswer> {
    const answer = await this.navigateUntold(...args);
    const server = (answer.structured as { server?: string }).server;
    if (!server || this.supervisor.trusted || this.#toldTrust.has(server)) return answer;
    this.#toldTrust.add(server);
    const notes = this.supervisor
      .trustNotes()
      .filter((t) => t.id === server)
      .map((t) => t.note);
    return notes.length
      ? {
          ...answer,
          text: `${answer.text}\n(workspace not trusted: ${notes.join("; ")}; lsp status says more)`,
        }
      : answer;
  }

  async navigateUntold(
    action: NavigationAction,
    file: string,
    line: number,
    symbol: string,
    signal: AbortSignal,
  ): Promise<LspAnswer> {
    const t = await this.target(file, line, symbol);
    requireCapability(t.client, action);
    const where = describeTarget(t.target);
    const reader = new SnippetReader(this.workdir, libraryRoots(this.supervisor.home));
    const textDocument = { uri: t.client.documents.get(fileUri(t.file))?.uri ?? fileUri(t.file) };
    const timeout = this.supervisor.timeouts.requestMs;
    const server = t.client.spec.id;
    if (action === "hover") {
      const ask = () =>
        t.client.request<Hover | null>(
          "textDocument/hover",
          { textDocument, position: t.position },
          timeout,
          signal,
        );
      let hover = await ask();
      if (
        !hoverText(hover) &&
        t.client.progressTitles.length &&
        (await t.client.settled(timeout, 0, signal))
      ) {
        hover = await ask();
      }
      // A hover quotes the definition's file (a docstring, a literal type): when there is something to say, where
      // the symbol is defined is asked too, so a hover is not the way to read a file outside the workdir.
      if (hoverText(hover) && t.client.capabilities.definitionProvider) {
        const defined = await t.client
          .request<Location | Location[] | LocationLink[] | null>(
            "textDocument/definition",
            { textDocument, position: t.position },
            timeout,
            signal,
          )
          .catch(() => null);
        const outside = asLocations(defined)
          .map((loc) => uriPath("targetUri" in loc ? loc.targetUri : loc.uri))
          .filter((file) => !reader.shows(file));
        if (outside.length)
          return {
            text: `hover ${where}: the symbol is defined outside the workdir (${reader.rel(outside[0]!)}), so what the server says of it is not shown.`,
            structured: { action, server, target: t.target, hover: NOT_SHOWN },
          };
      }
      const text = hoverText(hover);
      return {
        text: text ? `hover ${where}:\n${text}` : `${server} has no hover information ${where}.`,
        structured: { action, server, target: t.target, hover: text },
      };
    }
    if (action === "code_actions") return this.#codeActions(t, where, signal);
    const params =
      action === "references"
        ? { textDocument, position: t.position, context: { includeDeclaration: true } }
        : { textDocument, position: t.position };
    const ask = () =>
      t.client.request<Location | Location[] | LocationLink[] | null>(
        METHOD[action],
        params,
        timeout,
        signal,
      );
    let raw = await ask();
    // A server still loading its project answers empty: wait for its progress to end, then ask once more.
    if (
      asLocations(raw).length === 0 &&
      t.client.progressTitles.length &&
      (await t.client.settled(timeout, 0, signal))
    ) {
      raw = await ask();
    }
    // A server started moments ago may answer from a half-analysed workspace (pyright: 3 references, then 4, with no
    // progress reported). Where the catalog says so, confirm: ask again after a pause until two answers agree. (Not
    // for every server: it cost tsgo's 17 ms references 300 ms each for the first 15 s.)
    const confirmMs = t.client.spec.confirmReferencesMs;
    if (action === "references" && confirmMs && performance.now() - t.client.startedAt < confirmMs) {
      const deadline = performance.now() + timeout;
      for (let previous = -1; asLocations(raw).length !== previous && performance.now() < deadline; ) {
        previous = asLocations(raw).length;
        await new Promise((r) => setTimeout(r, CONFIRM_PAUSE_MS));
        raw = await ask();
      }
    }
    const locations = asLocations(raw);
    // A snippet costs a file read: only for the locations shown (a 300-file project has 600 references).
    const places = locations.slice(0, MAX_REFERENCES).map((loc) => reader.place(loc));
    const total = locations.length;
    const files = new Set(locations.map((loc) => ("targetUri" in loc ? loc.targetUri : loc.uri))).size;
    const label = action.replace("_", " ");
    if (places.length === 0) {
      return {
        text: `No ${label} found ${where} (${server} answered with no locations).`,
        structured: { action, server, target: t.target, locations: [], total: 0 },
      };
    }
    if (action !== "references") {
      const rows = places.map((p) => `  ${p.path}:${p.line}  ${p.snippet}`);
      return {
        text: `${label} ${where}${total > places.length ? ` (showing ${places.length} of ${total})` : ""}:\n${rows.join("\n")}`,
        structured: { action, server, target: t.target, locations: places, total },
      };
    }
    const byFile = new Map<string, Place[]>();
    for (const p of places) byFile.set(p.path, [...(byFile.get(p.path) ?? []), p]);
    const rows = [...byFile].map(
      ([f, ps]) => `${f}\n${ps.map((p) => `  ${p.line}  ${p.snippet}`).join("\n")}`,
    );
    const count = total > places.length ? `showing ${places.length} of ${total}, ` : "";
    return {
      text: `${plural(total, "reference")} ${where} (${count}in ${plural(files, "file")}):\n${rows.join("\n")}${this.#notShown(locations.slice(places.length), reader)}`,
      structured: { action, server, target: t.target, locations: places, total },
    };
  }

  /** One line on the references not shown: how many, in which files (the ten with most first), so the scope is known. */
  #notShown(rest: (Location | LocationLink)[], reader: SnippetReader): string {
    if (rest.length === 0) return "";
    const perFile = new Map<string, number>();
    for (const loc of rest) {
      const uri = "targetUri" in loc ? loc.targetUri : loc.uri;
      perFile.set(uri, (perFile.get(uri) ?? 0) + 1);
    }
    const named = [...perFile]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([uri, n]) => `${reader.rel(uriPath(uri))} (${n})`);
    const more = perFile.size > named.length ? `, +${plural(perFile.size - named.length, "more file")}` : "";
    return `\nNot shown: ${rest.length} more in ${plural(perFile.size, "file")}: ${named.join(", ")}${more}.`;
  }

  async #codeActions(
    t: Awaited<ReturnType<Lsp["target"]>>,
    where: string,
    signal: AbortSignal,
  ): Promise<LspAnswer> {
    const found = await diagnosticsOf(
      t.client,
      t.file,
      t.languageId,
      this.supervisor.timeouts.diagnosticsMs,
      signal,
    );
    // Only the diagnostics on that line go to the server: fixes for the whole file are not what was asked.
    const onLine = found.items.filter(
      (d) => d.range.start.line <= t.position.line && d.range.end.line >= t.position.line,
    );
    const range = {
      start: { line: t.position.line, character: 0 },
      end: { line: t.position.line + 1, character: 0 },
    };
    const result = await t.client.request<(CodeAction | Command)[] | null>(
      "textDocument/codeAction",
      { textDocument: { uri: fileUri(t.file) }, range, context: { diagnostics: onLine, triggerKind: 1 } },
      this.supervisor.timeouts.requestMs,
      signal,
    );
    const browse = new Set(t.client.spec.browseActionKinds ?? []);
    const all = (result ?? []).map((a) => ({
      title: a.title,
      ...("kind" in a && a.kind ? { kind: a.kind } : {}),
      ...("isPreferred" in a && a.isPreferred ? { preferred: true } : {}),
    }));
    // Fixes first (preferred, then quick fixes), then refactorings, then the rest; the server's order within each.
    const rank = (a: { kind?: string; preferred?: boolean }) =>
      a.preferred ? 0 : a.kind?.startsWith("quickfix") ? 1 : a.kind?.startsWith("refactor") ? 2 : 3;
    const actions = all
      .filter((a) => !(a.kind && browse.has(a.kind)))
      .map((a, i) => ({ a, i }))
      .sort((x, y) => rank(x.a) - rank(y.a) || x.i - y.i)
      .map(({ a }) => a);
    const left = all.length - actions.length;
    const header = `${plural(actions.length, "code action")} ${where} (${plural(onLine.length, "diagnostic")} on that line sent${left ? `; ${left} that only open a page for a person left out` : ""})`;
    const rows = actions.map(
      (a) => `  - ${a.title}${a.kind ? ` [${a.kind}]` : ""}${a.preferred ? " (preferred)" : ""}`,
    );
    return {
      text: actions.length ? `${header}:\n${rows.join("\n")}` : `${header}.`,
      structured: { action: "code_actions", server: t.client.spec.id, target: t.target, actions },
    };
  }

  async symbols(
    args: { file?: string | undefined; query?: string | undefined },
    signal: AbortSignal,
  ): Promise<LspAnswer> {
    const reader = new SnippetReader(this.workdir, libraryRoots(this.supervisor.home));
    if (args.file !== undefined && args.query === undefined) {
      const confined = await confineExisting(this.workdir, args.file, "file");
      const { client, languageId } = await this.supervisor.clientFor(confined.real, confined.rel);
      requireCapability(client, "symbols_file");
      const { uri } = await client.sync(confined.real, languageId);
      const raw = await client.request<(DocumentSymbol | SymbolInformation)[] | null>(
        "textDocument/documentSymbol",
        { textDocument: { uri } },
        this.supervisor.timeouts.requestMs,
        signal,
      );
      const rows = flattenSymbols(raw ?? [], confined.rel);
      const shown = rows.slice(0, MAX_DOCUMENT_SYMBOLS);
      const count = rows.length > shown.length ? ` (showing ${shown.length} of ${rows.length})` : "";
      return {
        text: `${plural(rows.length, "symbol")} in ${confined.rel}${count}:\n${shown.map((s) => `  ${s.line}  ${s.name} (${s.kind})`).join("\n")}`,
        structured: { action: "symbols", server: client.spec.id, symbols: shown, total: rows.length },
      };
    }
    const query = args.query ?? "";
    // With a file, its server (started if need be) answers the search; without, every running server does.
    const clients =
      args.file !== undefined ? [(await this.#clientOf(args.file)).client] : this.supervisor.runningClients();
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
    const label = (c: LspClient) => `${c.spec.id} @ ${reader.rel(c.root) || "."}`;
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
          this.supervisor.timeouts.requestMs,
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
        const line = "range" in loc ? loc.range.start.line + 1 : 0;
        rows.push({
          name: s.name,
          kind: SYMBOL_KINDS[s.kind] ?? "symbol",
          path: reader.rel(file),
          line,
          ...(s.containerName ? { container: s.containerName } : {}),
        });
      }
    }
    if (args.file === undefined) {
      const idle = this.supervisor
        .status()
        .available.filter((a) => !clients.some((c) => c.spec.id === a.id))
        .map((a) => `${a.id} (${a.roots.join(", ")})`);
      if (idle.length)
        notSearched.push(
          `${idle.join(", ")} ${idle.length === 1 ? "is" : "are"} not running — pass \`file\` (a file of that language) with \`query\` to search there too`,
        );
    }
    const inWorkdir = rows.filter((r) => !r.path.startsWith("/"));
    const shown = inWorkdir.slice(0, MAX_WORKSPACE_SYMBOLS);
    const count = inWorkdir.length > shown.length ? ` (showing ${shown.length} of ${inWorkdir.length})` : "";
    const by = searched.length ? `searched by ${searched.join(", ")}` : "no server could search";
    const lines = shown.map(
      (s) => `  ${s.path}:${s.line}  ${s.name} (${s.kind}${s.container ? ` in ${s.container}` : ""})`,
    );
    return {
      text: [
        `${plural(inWorkdir.length, "symbol")} matching "${query}"${count}, ${by}${lines.length ? ":" : "."}`,
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
    };
  }

  /** The file's server, and its fresh (or honestly not fresh) diagnostics. */
  async #diagnosticsOf(confined: { real: string; rel: string }, signal: AbortSignal, written = false) {
    const { client, languageId } = await this.supervisor.clientFor(confined.real, confined.rel);
    const found = await diagnosticsOf(
      client,
      confined.real,
      languageId,
      this.supervisor.timeouts.diagnosticsMs,
      signal,
      written,
    );
    return { client, found };
  }

  async #clientOf(file: string) {
    const confined = await confineExisting(this.workdir, file, "file");
    return this.supervisor.clientFor(confined.real, confined.rel);
  }

  async fileDiagnostics(file: string, signal: AbortSignal): Promise<LspAnswer> {
    const confined = await confineExisting(this.workdir, file, "file");
    const { client, found } = await this.#diagnosticsOf(confined, signal);
    if (found.freshness === "fresh") this.journal.record(confined.real, found.items);
    const rows = sortDiagnostics(found.items).map((d) => diagnosticRow(confined.rel, d));
    const shown = rows.slice(0, MAX_DIAGNOSTICS);
    const grouped = groupedDiagnosticLines(
      sortDiagnostics(found.items).map((d) => ({ rel: confined.rel, d })),
      MAX_DIAGNOSTICS,
    );
    const lines = grouped.lines.map((line) => `  ${line}`);
    const more = rows.length > grouped.covered ? `\n  +${rows.length - grouped.covered} more` : "";
    return {
      text: `${freshnessHeader(found, client.spec.id)} ${confined.rel}: ${found.freshness !== "fresh" && found.items.length === 0 ? "none received in time" : countText(found.items)}${lines.length ? `\n${lines.join("\n")}${more}` : ""}`,
      structured: {
        action: "diagnostics",
        server: client.spec.id,
        freshness: found.freshness,
        diagnostics: shown,
        total: rows.length,
      },
    };
  }

  /** The project-wide check: every root of every catalog server, its checker's findings; counts per file first. */
  async projectDiagnostics(
    signal: AbortSignal,
    progress: (p: { progress: number; total?: number; message?: string }) => Promise<void>,
  ): Promise<LspAnswer> {
    const jobs = this.supervisor.specs.flatMap((spec) =>
      rootsIn(this.workdir, spec.rootMarkers).map((root) => ({ spec, root })),
    );
    if (jobs.length === 0)
      throw new ToolError(
        "No project root of any known language was found in the workdir, so there is nothing to check.",
      );
    const reader = new SnippetReader(this.workdir, libraryRoots(this.supervisor.home));
    const rows: DiagnosticRow[] = [];
    const notes: string[] = [];
    let done = 0;
    for (const { spec, root } of jobs) {
      await progress({
        progress: done,
        total: jobs.length,
        message: `${spec.id} in ${reader.rel(root) || "."}`,
      });
      const run = await runCheck(
        spec,
        root,
        this.workdir,
        this.#processes,
        signal,
        this.supervisor.home,
        this.supervisor.trusted,
      );
      done++;
      const where = `${spec.id} @ ${reader.rel(root) || "."}`;
      if (run.outcome !== "fresh") notes.push(`${where}: ${run.outcome}${run.note ? ` (${run.note})` : ""}`);
      else notes.push(`${where}: ${run.command} → ${plural(run.rows.length, "finding")}`);
      for (const row of run.rows) rows.push({ ...row, path: reader.rel(row.path) });
    }
    const order = (r: DiagnosticRow) => (r.severity === "error" ? 0 : r.severity === "warning" ? 1 : 2);
    rows.sort((a, b) => order(a) - order(b) || a.path.localeCompare(b.path) || a.line - b.line);
    const perFile = new Map<string, number>();
    for (const r of rows) perFile.set(r.path, (perFile.get(r.path) ?? 0) + 1);
    const counts = [...perFile].sort((a, b) => b[1] - a[1]).map(([f, n]) => `  ${f}: ${n}`);
    const shown = rows.slice(0, MAX_DIAGNOSTICS);
    const details = shown.map(
      (r) =>
        `  ${r.path}:${r.line} ${r.severity}: ${r.message.split("\n")[0]}${r.code ? ` [${r.code}]` : ""}`,
    );
    const more = rows.length > shown.length ? [`  +${rows.length - shown.length} more`] : [];
    const complete = notes.every((n) => n.includes("→"));
    const text = [
      `Project-wide check: ${plural(rows.length, "finding")} in ${plural(perFile.size, "file")}${complete ? "" : " (some checks did not run — see below; this is not a clean bill for them)"}.`,
      ...notes.map((n) => `  ${n}`),
      ...(counts.length ? ["Per file:", ...counts, "Details (errors first):", ...details, ...more] : []),
    ].join("\n");
    return {
      text,
      structured: {
        action: "diagnostics",
        freshness: complete ? "fresh" : "stale",
        diagnostics: shown,
        total: rows.length,
      },
    };
  }

  /** Diagnostics on write: what is new since the agent was last told, per written file. */
  async afterWrite(
    paths: readonly string[],
    signal: AbortSignal,
  ): Promise<{ text: string; value: AfterWriteDiagnostics } | undefined> {
    const batch = fanOut(signal);
    const results = await Promise.all(
      paths.map(async (rel) => {
        const confined = await confine(this.workdir, rel).catch(() => undefined);
        if (!confined || !this.supervisor.specFor(confined.real)) return undefined;
        if (!existsSync(confined.real)) {
          // Deleted or moved away by this write: the server must forget it, or it keeps reporting on a ghost.
          await this.supervisor.forget(confined.real);
          this.journal.record(confined.real, []);
          return undefined;
        }
        try {
          const { client, found } = await this.#diagnosticsOf(confined, batch.signal, true);
          return {
            rel: confined.rel,
            server: client.spec.id,
            found,
            delta: found.freshness === "fresh" ? this.journal.record(confined.real, found.items) : undefined,
          };
        } catch (error) {
          return {
            rel: confined.rel,
            unavailable: error instanceof ToolError ? error.message : (error as Error).message,
          };
        }
      }),
    ).finally(() => batch.dispose());
    const files = results.filter((r) => r !== undefined);
    if (files.length === 0) return undefined;
    const before = this.#toldUnavailable.size;
    const lines: string[] = [];
    const value: AfterWriteDiagnostics = { files: [] };
    let resolved = 0;
    const added: { rel: string; d: Diagnostic }[] = [];
    const notFresh: string[] = [];
    for (const f of files) {
      if ("unavailable" in f) {
        const why = f.unavailable ?? "no server";
        if (!this.#toldUnavailable.has(why)) lines.push(`(no diagnostics for ${f.rel}: ${why})`);
        this.#toldUnavailable.add(why);
        value.files.push({ path: f.rel, freshness: "unavailable", new: [], resolved: 0 });
        continue;
      }
      if (!f.delta) {
        notFresh.push(
          `(diagnostics for ${f.rel} are ${f.found.freshness}: ${f.found.why ?? "unknown"}; they are not shown as clean)`,
        );
        value.files.push({
          path: f.rel,
          server: f.server,
          freshness: f.found.freshness,
          new: [],
          resolved: 0,
        });
        continue;
      }
      resolved += f.delta.resolved;
      for (const d of f.delta.added) added.push({ rel: f.rel, d });
      value.files.push({
        path: f.rel,
        server: f.server,
        freshness: "fresh",
        new: f.delta.added.map((d) => diagnosticRow(f.rel, d)),
        resolved: f.delta.resolved,
      });
    }
    // One line per file whose diagnostics are not fresh, up to a point: a rewrite of 300 files must not answer 300.
    lines.push(...notFresh.slice(0, MAX_NOT_FRESH_LISTED));
    if (notFresh.length > MAX_NOT_FRESH_LISTED)
      lines.push(
        `(+${plural(notFresh.length - MAX_NOT_FRESH_LISTED, "more file")} whose diagnostics are not fresh either)`,
      );
    added.sort((a, b) => (a.d.severity ?? 1) - (b.d.severity ?? 1));
    const grouped = groupedDiagnosticLines(added, 10);
    const shown = grouped.lines.map((line) => `  ${line}`);
    const head = added.length
      ? `Diagnostics after this write: ${plural(added.length, "new one")}`
      : "Diagnostics after this write: nothing new";
    const tail = [
      ...(added.length > grouped.covered ? [`  +${added.length - grouped.covered} more`] : []),
      ...(resolved ? [`${plural(resolved, "earlier diagnostic")} resolved.`] : []),
    ];
    const served = files.some((f) => !("unavailable" in f));
    const body = served ? [head + (added.length ? ":" : "."), ...shown, ...tail, ...lines] : lines;
    if (body.length === 0 && this.#toldUnavailable.size === before) return { text: "", value };
    return { text: body.join("\n"), value };
  }

  /** prepareRename, rename, then the WorkspaceEdit applied all or nothing. */
  async rename(
    file: string,
    line: number,
    symbol: string,
    newName: string,
    signal: AbortSignal,
  ): Promise<RenameAnswer> {
    const t = await this.target(file, line, symbol);
    requireCapability(t.client, "rename");
    const problem = identifierProblem(newName, t.languageId);
    if (problem) {
      // Quoted as the model can read it back: clipped, and nothing invisible left invisible.
      const shown = newName.length > 60 ? `${newName.slice(0, 60)}…` : newName;
      throw new ToolError(`\`new_name\` "${visibleLine(shown)}" ${problem}; nothing was changed.`);
    }
    if (newName === t.target.identifier)
      throw new ToolError(`\`new_name\` is the current name \`${newName}\`; nothing to rename.`);
    const textDocument = { uri: fileUri(t.file) };
    const timeout = this.supervisor.timeouts.requestMs;
    const server = t.client.spec.name;
    const where = `\`${t.target.identifier}\` at ${t.target.path}:${t.target.line}`;
    const refused = (what: string) => (error: Error) => {
      if (error instanceof ToolError || error.name === "TimeoutError") throw error;
      throw new ToolError(`${server} ${what}: ${error.message}. Nothing was changed.`);
    };
    const provider = t.client.capabilities.renameProvider;
    if (typeof provider === "object" && provider.prepareProvider) {
      const prepared = await t.client
        .request<unknown>(
          "textDocument/prepareRename",
          { textDocument, position: t.position },
          timeout,
          signal,
        )
        .catch(refused(`refuses to rename ${where}`));
      if (!prepared) {
        throw new ToolError(
          `${server} says ${where} cannot be renamed (a keyword, a built-in, or defined outside the project?). Nothing was changed.`,
        );
      }
    }
    const edit = await t.client
      .request<WorkspaceEdit | null>(
        "textDocument/rename",
        { textDocument, position: t.position, newName },
        timeout,
        signal,
      )
      .catch(refused(`could not rename ${where} to \`${newName}\``));
    if (!edit || (!edit.changes && !edit.documentChanges))
      throw new ToolError(`${server} returned no edit for renaming ${where}. Nothing was changed.`);
    const applied = await applyWorkspaceEdit(
      "lsp_rename",
      edit,
      this.workdir,
      t.client.encoding,
      t.client.documents,
    );
    const edits = applied.files.reduce((n, f) => n + f.edits, 0);
    const rows = [
      ...applied.files.map((f) => `  ${f.path} (${plural(f.edits, "edit")})`),
      ...applied.renamed.map((r) => `  renamed ${r.from} → ${r.to}`),
      ...applied.created.map((c) => `  created ${c}`),
      ...applied.deleted.map((d) => `  deleted ${d}`),
    ];
    const { written, ...changes } = applied;
    return {
      text: `Renamed \`${t.target.identifier}\` to \`${newName}\`: ${plural(edits, "edit")} in ${plural(applied.files.length, "file")}.\n${rows.join("\n")}`,
      structured: { old_name: t.target.identifier, new_name: newName, ...changes },
      written,
    };
  }

  status(): LspAnswer {
    const { running, unavailable, available } = this.supervisor.status();
    const rows = running.map(
      (s) =>
        `  ${s.id} @ ${s.root}: ${s.state}${s.progress ? ` (${s.progress.join("; ")})` : ""}${s.pid ? `, pid ${s.pid}` : ""}${s.restarts ? `, ${plural(s.restarts, "restart")}` : ""}${s.lastError ? `, last error: ${s.lastError}` : ""}`,
    );
    const idle = available
      .filter((a) => !running.some((r) => r.id === a.id))
      .map((a) => `  ${a.id}: can serve ${a.roots.join(", ")} (starts on first use)`);
    const missing = unavailable.map((u) => `  ${u.id}: ${u.reason}`);
    const trust = this.supervisor.trustNotes();
    const text = [
      ...(trust.length
        ? [
            `Workspace not trusted (${this.supervisor.trust.how}): none of its code runs here —`,
            ...trust.map((t) => `  ${t.note}`),
          ]
        : []),
      running.length ? "Running:" : "Running: none",
      ...rows,
      ...(idle.length ? ["Available:", ...idle] : []),
      ...(missing.length ? ["Cannot serve here:", ...missing] : []),
    ].join("\n");
    return { text, structured: { action: "status" } };
  }

  async reload(file: string | undefined): Promise<LspAnswer> {
    const confined = file ? await confineExisting(this.workdir, file, "file") : undefined;
    const reloaded = await this.supervisor.reload(confined?.real);
    const text = reloaded.length
      ? `Reloaded: ${reloaded.map((s) => `${s.id} @ ${s.root} (${s.state})`).join(", ")}`
      : `No server was running${confined ? ` for ${confined.rel}` : ""}; nothing to reload.`;
    return { text, structured: { action: "reload" } };
  }

  dispose(): Promise<void> {
    return this.supervisor.dispose();
  }
}

/** The last few files read for a target: their stat, bytes and text. */
const readTexts = new Map<string, { print: Fingerprint; bytes: Buffer; text: string }>();

/**
 * A file's text as it is now (an answer must match the file), without reading it while a stat proves it unchanged
 * (fingerprint.ts), and decoded again only when its bytes changed: for a 2.6 MB file decoding is ~3 ms of a ~4 ms
 * read, comparing bytes a fraction of a millisecond, and a stat microseconds.
 */
function readText(file: string): string {
  const print = fingerprint(file);
  let entry = readTexts.get(file);
  if (!entry || !unchanged(entry.print, print)) {
    const bytes = readFileSync(file);
    entry = { print, bytes, text: entry?.bytes.equals(bytes) ? entry.text : bytes.toString("utf8") };
  }
  readTexts.delete(file);
  readTexts.set(file, entry);
  if (readTexts.size > 8) readTexts.delete(readTexts.keys().next().value!);
  return entry.text;
}

function requireCapability(client: LspClient, action: keyof typeof CAPABILITY): void {
  const capability = CAPABILITY[action];
  if (!client.capabilities[capability]) {
    throw new ToolError(
      `${client.spec.name} does not support ${action.replace("_", " ")} (it does not advertise ${capability}). Try another action.`,
    );
  }
}

function describeTarget(t: LspTarget): string {
  const which = t.of > 1 ? `, occurrence ${t.occurrence} of ${t.of}` : "";
  return `for \`${t.identifier}\` at ${t.path}:${t.line} (column ${t.column}${which})${t.note ? ` — ${t.note}` : ""}`;
}

function fileUri(file: string): string {
  return new URL(`file://${file}`).href;
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
        line: s.selectionRange.start.line + 1,
      });
      if (s.children?.length) rows.push(...flattenSymbols(s.children, rel, name));
    } else {
      const name = s.containerName ? `${s.containerName}.${s.name}` : s.name;
      rows.push({
        name,
        kind: SYMBOL_KINDS[s.kind] ?? "symbol",
        path: rel,
        line: s.location.range.start.line + 1,
      });
    }
  }
  return rows;
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

function countText(items: Diagnostic[]): string {
  if (items.length === 0) return "no errors or warnings";
  const errors = items.filter((d) => (d.severity ?? 1) === 1).length;
  const warnings = items.filter((d) => d.severity === 2).length;
  const other = items.length - errors - warnings;
  return [
    errors && plural(errors, "error"),
    warnings && plural(warnings, "warning"),
    other && `${other} info`,
  ]
    .filter(Boolean)
    .join(", ");
}

function freshnessHeader(found: FileDiagnostics, server: string): string {
  if (found.freshness === "fresh") return `Diagnostics (${server}, fresh) for`;
  return `Diagnostics (${server}, ${found.freshness.toUpperCase()}: ${found.why}; may be out of date — not a clean bill) for`;
}
