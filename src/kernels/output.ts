/**
 * A cell's text output as a notebook (and a terminal) shows it, bounded. A carriage return goes back to the start of
 * the line and what follows overwrites it, a backspace one character back: a progress bar (tqdm, pip, a training
 * loop's `\r` updates) is its last state, not every state it went through — 5,000 updates filled the 32 KB the answer
 * keeps and pushed out everything printed before them. As in Jupyter, that happens within a run of one stream's
 * messages: stdout printed between a stderr bar's redraws starts a block of its own instead of overwriting the bar.
 * `clear_output` clears what came before (`wait=True`: when the next output comes).
 */

const BACKSPACE = String.fromCharCode(8);
const TOKENS = new RegExp(`\r\n|\n|\r|${BACKSPACE}|[^\r\n${BACKSPACE}]+`, "g");

export class CellText {
  /** Complete lines, each ending in "\n". */
  #done = "";
  /** The line being written, where the next character goes on it, and which stream writes it. */
  #line = "";
  #cursor = 0;
  #stream: string | undefined;
  #clearOnNext = false;
  /** Characters left out at the start (past the limit), since the last clear. */
  dropped = 0;
  /** How many times the cell cleared its output. */
  clears = 0;

  constructor(
    readonly limit: number,
    /** Called when the output is cleared (the images go with the text). */
    readonly onClear: () => void = () => {},
  ) {}

  get text(): string {
    return this.#done + this.#line;
  }

  get empty(): boolean {
    return this.#done === "" && this.#line === "";
  }

  /** Stream text (of the stream `name`), as a terminal writes it. */
  write(text: string, name = "stdout"): void {
    this.#pendingClear();
    if (name !== this.#stream) this.#endBlock(name);
    for (const [token] of text.matchAll(TOKENS)) {
      if (token === "\n" || token === "\r\n") {
        this.#done += `${this.#line}\n`;
        this.#line = "";
        this.#cursor = 0;
      } else if (token === "\r") this.#cursor = 0;
      else if (token === BACKSPACE) this.#cursor = Math.max(0, this.#cursor - 1);
      else {
        this.#line =
          this.#line.slice(0, this.#cursor) + token + this.#line.slice(this.#cursor + token.length);
        this.#cursor += token.length;
      }
    }
    this.#trim();
  }

  /** A displayed value's text: a block of its own, on a new line, taken as it is. */
  block(text: string): void {
    this.#pendingClear();
    this.#endBlock(undefined);
    this.#done += text.endsWith("\n") ? text : `${text}\n`;
    this.#trim();
  }

  /** The text and images so far cleared (Jupyter's clear_output); with `wait`, when the next output comes. */
  clear(wait: boolean): void {
    if (wait) {
      this.#clearOnNext = true;
      return;
    }
    this.#done = this.#line = "";
    this.#cursor = 0;
    this.#stream = undefined;
    this.dropped = 0;
    this.clears++;
    this.#clearOnNext = false;
    this.onClear();
  }

  /** Before an image is kept: a clear that waited for the next output happens now. */
  beforeImage(): void {
    this.#pendingClear();
  }

  /** The block being written ends (another stream or a displayed value follows): its last line is kept as it is. */
  #endBlock(next: string | undefined): void {
    if (this.#line) this.#done += `${this.#line}\n`;
    this.#line = "";
    this.#cursor = 0;
    this.#stream = next;
  }

  #pendingClear(): void {
    if (this.#clearOnNext) this.clear(false);
  }

  /** The last `limit` characters kept; once per write, so a message of many lines is cut once. */
  #trim(): void {
    const over = this.#done.length + this.#line.length - this.limit;
    if (over <= 0) return;
    const fromDone = Math.min(over, this.#done.length);
    this.#done = this.#done.slice(fromDone);
    const fromLine = over - fromDone;
    if (fromLine > 0) {
      this.#line = this.#line.slice(fromLine);
      this.#cursor = Math.max(0, this.#cursor - fromLine);
    }
    this.dropped += over;
  }
}
