/**
 * What a language server printed and reported: its stderr and messages as they came (the tail explains a crash),
 * and apart from them the errors and warnings it reported (window/showMessage, window/logMessage) — what explains
 * an error answer such as gopls's "no views", where the log's tail may be only a chatty server's trace lines.
 */

const LOG_LINES = 40;
const REPORTS = 5;
const LINE_CHARS = 300;
/** A log line's own date and time (gopls: `2026/12/02 12:34:22 `): a repeat of a report is the same report. */
const TIMESTAMP = /^\d{4}[/-]\d\d[/-]\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?Z? /;

const clip = (text: string) => (text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS)}…` : text);

export class ServerOutput {
  readonly #log: string[] = [];
  readonly #reports: string[] = [];

  /** Everything, newest last (stderr lines and messages). */
  get log(): readonly string[] {
    return this.#log;
  }

  /** The errors and warnings the server reported, newest last, each once. */
  get reports(): readonly string[] {
    return this.#reports;
  }

  /** Text the server printed or sent; `report`: it came as an error or a warning (one message, kept as one). */
  add(text: string, report = false): void {
    for (const line of text.split("\n")) {
      const trimmed = line.trim();
      if (trimmed) this.#log.push(clip(trimmed));
    }
    if (this.#log.length > LOG_LINES) this.#log.splice(0, this.#log.length - LOG_LINES);
    if (report) this.#report(text);
  }

  #report(text: string): void {
    const said = clip(text.replace(TIMESTAMP, "").replace(/\s+/g, " ").trim());
    if (!said) return;
    // Reports that differ only in their numbers (a load's count, its duration) are one report, said as it was last.
    const shape = said.replace(/\d+/g, "#");
    const seen = this.#reports.findIndex((r) => r.replace(/\d+/g, "#") === shape);
    if (seen !== -1) this.#reports.splice(seen, 1);
    this.#reports.push(said);
    if (this.#reports.length > REPORTS) this.#reports.splice(0, this.#reports.length - REPORTS);
  }
}
