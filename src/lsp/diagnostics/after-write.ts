/** Diagnostics on write: after a write, what is new since the agent was last told, per written file. */
import { existsSync } from "node:fs";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { ToolError } from "../../errors.js";
import { confineHeld } from "../../files/paths.js";
import { plural } from "../../files/text.js";
import { shownPath } from "../../files/visible.js";
import { fanOut } from "../../signals.js";
import type { AfterWriteDiagnostics } from "../schema.js";
import type { LspBase } from "../target.js";
import { diagnosticsAt } from "./diagnose.js";
import { diagnosticRow, groupedDiagnosticLines } from "./diagnostics.js";

const MAX_NOT_FRESH_LISTED = 5;

export class WriteDiagnostics {
  readonly #base: LspBase;
  /** "Cannot serve" reasons already told after a write: said once per run, not on every write. */
  readonly #toldUnavailable = new Set<string>();

  constructor(base: LspBase) {
    this.#base = base;
  }

  /** Diagnostics on write: what is new since the agent was last told, per written file. */
  async report(
    paths: readonly string[],
    signal: AbortSignal,
  ): Promise<{ text: string; value: AfterWriteDiagnostics } | undefined> {
    const batch = fanOut(signal);
    const results = await Promise.all(paths.map((rel) => this.#check(rel, batch.signal))).finally(() =>
      batch.dispose(),
    );
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
        if (!this.#toldUnavailable.has(why)) lines.push(`(no diagnostics for ${shownPath(f.rel)}: ${why})`);
        this.#toldUnavailable.add(why);
        value.files.push({ path: f.rel, freshness: "unavailable", new: [], resolved: 0 });
        continue;
      }
      if (!f.delta) {
        notFresh.push(
          `(diagnostics for ${shownPath(f.rel)} are ${f.found.freshness}: ${f.found.why ?? "unknown"}; they are not shown as clean)`,
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
    for (const server of new Set(files.map((f) => ("server" in f ? f.server : undefined)))) {
      const note = server && this.#base.trustNoteOnce(server);
      if (note) lines.push(note);
    }
    const served = files.some((f) => !("unavailable" in f));
    const body = served ? [head + (added.length ? ":" : "."), ...shown, ...tail, ...lines] : lines;
    if (body.length === 0 && this.#toldUnavailable.size === before) return { text: "", value };
    return { text: body.join("\n"), value };
  }

  /** One written file's diagnostics and what is new in them; undefined when no server handles it (or it is gone). */
  async #check(rel: string, signal: AbortSignal) {
    const confined = await confineHeld(this.#base.workdir, rel).catch(() => undefined);
    if (!confined || !this.#base.supervisor.specFor(confined.real)) return undefined;
    if (!existsSync(confined.real)) {
      // Deleted or moved away by this write: the server must forget it, or it keeps reporting on a ghost.
      await this.#base.supervisor.forget(confined.real);
      this.#base.journal.record(confined.real, []);
      return undefined;
    }
    try {
      const { client, found } = await diagnosticsAt(this.#base, confined, signal, true);
      return {
        rel: confined.rel,
        server: client.spec.id,
        found,
        delta:
          found.freshness === "fresh" ? this.#base.journal.record(confined.real, found.items) : undefined,
      };
    } catch (error) {
      return {
        rel: confined.rel,
        unavailable: error instanceof ToolError ? error.message : (error as Error).message,
      };
    }
  }
}
