/**
 * What the agent has already been told about diagnostics, per run: for each file, a count per (severity, code,
 * message) — the position deliberately left out, so an error that merely moved is not "new". A key is reported
 * when it is new or its count rose; a key that disappears is dropped, so it is reported again if it returns.
 */
import type { Diagnostic } from "vscode-languageserver-protocol";
import { messageText } from "./diagnostics.js";

export interface JournalDelta {
  /** The diagnostics to report: for each key whose count rose, that many of its occurrences. */
  readonly added: Diagnostic[];
  /** How many previously reported diagnostics are gone. */
  readonly resolved: number;
}

// Only the message's first line: servers append notes with positions below it ("a.c:29:9: note: …").
const keyOf = (d: Diagnostic) =>
  `${d.severity ?? 1}\u0000${d.code ?? ""}\u0000${messageText(d).split("\n")[0]?.trim()}`;

export class DiagnosticsJournal {
  readonly #files = new Map<string, Map<string, number>>();

  /** Records the file's current diagnostics and returns what is new since the last record. */
  record(file: string, items: readonly Diagnostic[]): JournalDelta {
    const before = this.#files.get(file) ?? new Map<string, number>();
    const now = new Map<string, Diagnostic[]>();
    for (const d of items) {
      const key = keyOf(d);
      const list = now.get(key) ?? [];
      list.push(d);
      now.set(key, list);
    }
    const added: Diagnostic[] = [];
    for (const [key, list] of now) for (const d of list.slice(before.get(key) ?? 0)) added.push(d);
    let resolved = 0;
    for (const [key, count] of before) resolved += Math.max(0, count - (now.get(key)?.length ?? 0));
    this.#files.set(file, new Map([...now].map(([key, list]) => [key, list.length])));
    return { added, resolved };
  }
}
