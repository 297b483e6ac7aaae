/**
 * The `lsp` resource of a run: a facade over the features — navigation, symbols, code actions, diagnostics (of a
 * file, of the project, on write) and rename, one file each — plus what belongs to the whole: trust, status, reload.
 * Servers come from the supervisor.
 */

import { confine, confineExisting } from "../files/paths.js";
import { plural } from "../files/text.js";
import type { ProcessTracker } from "../proc/tracker.js";
import { type HierarchyOptions, navigate } from "./actions/navigation.js";
import { symbols } from "./actions/symbols.js";
import { WriteDiagnostics } from "./diagnostics/after-write.js";
import { fileDiagnostics, projectDiagnostics } from "./diagnostics/diagnose.js";
import { DiagnosticsJournal } from "./diagnostics/journal.js";
import { renameFile } from "./rename/file-rename.js";
import { rename } from "./rename/rename.js";
import { checkRename, type RenameArgs } from "./rename/rename-check.js";
import type { AfterWriteDiagnostics, LspAnswer, NavigationAction, RenameAnswer } from "./schema.js";
import { OutsideChanges } from "./server/outside-changes.js";
import { quoteReport } from "./server/request-errors.js";
import type { LspSupervisor } from "./server/supervisor.js";
import { unservedLanguages } from "./server/unserved.js";
import { findTarget, type LspBase } from "./target.js";
import type { TrustAsked } from "./trust/trust.js";

export class LanguageService implements LspBase {
  readonly supervisor: LspSupervisor;
  readonly journal = new DiagnosticsJournal();
  readonly workdir: string;
  readonly #processes: ProcessTracker;
  readonly #written: WriteDiagnostics;
  /** Changes to the workdir made by anything else, sent to the servers. */
  readonly outside: OutsideChanges;
  /** Servers whose answer already told what an untrusted workspace changes for them. */
  readonly #toldTrust = new Set<string>();

  /** Over the run's servers (`processes` also runs the project-wide checks). */
  constructor(supervisor: LspSupervisor, processes: ProcessTracker) {
    this.supervisor = supervisor;
    this.workdir = supervisor.workdir;
    this.#processes = processes;
    this.#written = new WriteDiagnostics(this);
    this.outside = new OutsideChanges(supervisor);
    supervisor.onStart = () => this.outside.start();
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

  /** A navigation action's answer, told once per server what an untrusted workspace changes for it. */
  async navigate(
    action: NavigationAction,
    file: string,
    line: number | undefined,
    symbol: string,
    signal: AbortSignal,
    options: HierarchyOptions = {},
  ): Promise<LspAnswer> {
    await this.outside.settled();
    const answer = await navigate(this, await findTarget(this, file, line, symbol), action, signal, options);
    return withTrustNote(this, answer);
  }

  trustNoteOnce(server: string): string | undefined {
    if (this.supervisor.trusted || this.#toldTrust.has(server)) return undefined;
    this.#toldTrust.add(server);
    const notes = this.supervisor.trustNotes(server).map((t) => t.note);
    return notes.length ? `(workspace not trusted: ${notes.join("; ")}; lsp status says more)` : undefined;
  }

  async symbols(
    args: { file?: string | undefined; query?: string | undefined },
    signal: AbortSignal,
  ): Promise<LspAnswer> {
    await this.outside.settled();
    return symbols(this, args, signal);
  }

  async fileDiagnostics(file: string, signal: AbortSignal): Promise<LspAnswer> {
    await this.outside.settled();
    return withTrustNote(this, await fileDiagnostics(this, file, signal));
  }

  /** The project-wide check: every root of every catalog server, its checker's findings; counts per file first. */
  projectDiagnostics(
    signal: AbortSignal,
    progress: (p: { progress: number; total?: number; message?: string }) => Promise<void>,
  ): Promise<LspAnswer> {
    return projectDiagnostics(this, this.#processes, signal, progress);
  }

  /** Diagnostics on write: what is new since the agent was last told, per written file. */
  afterWrite(
    paths: readonly string[],
    signal: AbortSignal,
  ): Promise<{ text: string; value: AfterWriteDiagnostics } | undefined> {
    return this.#written.report(paths, signal);
  }

  async rename(
    file: string,
    line: number | undefined,
    symbol: string,
    newName: string,
    signal: AbortSignal,
  ): Promise<RenameAnswer> {
    await this.outside.settled();
    return rename(this, await findTarget(this, file, line, symbol), newName, signal);
  }

  /** What lsp_rename would refuse, found without a server and before any approval. */
  async checkRename(args: RenameArgs): Promise<void> {
    await checkRename(this, args);
  }

  /** A file moved with the edits its servers propose (willRenameFiles), all or nothing. */
  async renameFile(file: string, newPath: string, signal: AbortSignal): Promise<RenameAnswer> {
    await this.outside.settled();
    return renameFile(this, file, newPath, signal);
  }

  status(): LspAnswer {
    const { running, unavailable, available } = this.supervisor.status();
    const rows = running.map(
      (s) =>
        `  ${s.id} @ ${s.root}: ${s.idle?.startsWith("stopped") ? s.idle : s.state}${s.progress ? ` (${s.progress.join("; ")})` : ""}${s.pid ? `, pid ${s.pid}` : ""}${s.restarts ? `, ${plural(s.restarts, "restart")}` : ""}${s.lastError ? `, last error: ${s.lastError}` : ""}${s.reported ? `, last reported: ${quoteReport(s.reported, this.workdir)}` : ""}${s.idle && !s.idle.startsWith("stopped") ? `, ${s.idle}` : ""}, ${this.#placeOf(s)}`,
    );
    const idle = available
      .filter((a) => !running.some((r) => r.id === a.id))
      .map((a) => `  ${a.id}: can serve ${a.roots.join(", ")} (starts on first use)`);
    const missing = unavailable.map((u) => `  ${u.id}: ${u.reason}`);
    const unserved = unservedLanguages(this.workdir, this.supervisor.specs).map(
      ([language, n]) => `  ${language} (${plural(n, "file")} here)`,
    );
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
      ...(unserved.length
        ? [
            "No server runbound can install (none is published on npm, PyPI, the Go proxy, crates.io, Maven Central or Debian in a form it runs); a harness gives its own with createRun({ lsp: { servers: [...] } }):",
            ...unserved,
          ]
        : []),
      ...(this.outside.describe() ? [this.outside.describe()!] : []),
      ...(running.some((s) => s.inPlace && this.supervisor.confinedPlace.kind !== "host")
        ? [`Servers run ${this.supervisor.confinedPlace.description}`]
        : []),
    ].join("\n");
    return { text, structured: { action: "status" } };
  }

  #placeOf(server: { inPlace: boolean; runsProjectCode: boolean }): string {
    const kind = this.supervisor.confinedPlace.kind;
    const project = server.runsProjectCode ? " (it runs the project's code)" : "";
    if (kind === "container") return "in the container";
    if (kind === "confined") return `confined${project}`;
    return server.runsProjectCode
      ? "on the host although it runs the project's code (the run does not confine)"
      : "on the host (the run does not confine; it runs runbound's code only)";
  }

  async reload(file: string | undefined): Promise<LspAnswer> {
    const confined = file ? await confineExisting(this.workdir, file, "file") : undefined;
    const reloaded = await this.supervisor.reload(confined?.real);
    const text = reloaded.length
      ? `Reloaded: ${reloaded.map((s) => `${s.id} @ ${s.root} (${s.state})`).join(", ")}`
      : `No server was running${confined ? ` for ${confined.shown}` : ""}; nothing to reload.`;
    return { text, structured: { action: "reload" } };
  }

  async dispose(): Promise<void> {
    await this.outside.dispose();
    await this.supervisor.dispose();
  }
}

/** The answer, with what an untrusted workspace changes for its server the first time that server answers. */
function withTrustNote(base: LspBase, answer: LspAnswer): LspAnswer {
  const server = answer.structured.server;
  const note = server ? base.trustNoteOnce(server) : undefined;
  return note ? { ...answer, text: `${answer.text}\n${note}` } : answer;
}
