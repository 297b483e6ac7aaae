/**
 * Program output as a notebook (and a terminal) shows it, bounded: a cell's, a debuggee's. A carriage return goes
 * back to the start of the line and what follows overwrites it, a backspace one character back: a progress bar (tqdm,
 * pip, a training loop's `\r` updates) is its last state, not every state it went through — 5,000 updates filled
 * the 32 KB a cell's answer keeps and pushed out everything printed before them. As in Jupyter, that happens within a
 * run of one stream's messages: stdout printed between a stderr bar's redraws starts a block of its own instead of
 * overwriting the bar. `clear` is Jupyter's clear_output (`wait`: when the next output comes).
 */

const BACKSPACE = String.fromCharCode(8);
const CONTROL = new RegExp(`[\r${BACKSPACE}]`);

/** A line being written: its text, and where the next character goes. */
interface Line {
  text: string;
  cursor: number;
}

/** `piece` (no "\n") written onto `line` as a terminal writes it. */
function put(line: Line, piece: string): void {
  if (!CONTROL.test(piece)) {
    overwrite(line, piece);
    return;
  }
  for (const [i, part] of piece.split("\r").entries()) {
    if (i > 0) line.cursor = 0;
    for (const [j, run] of part.split(BACKSPACE).entries()) {
      if (j > 0) line.cursor = Math.max(0, line.cursor - 1);
      overwrite(line, run);
    }
  }
}

function overwrite(line: Line, text: string): void {
  if (!text) return;
  line.text = line.text.slice(0, line.cursor) + text + line.text.slice(line.cursor + text.length);
  line.cursor += text.length;
}

export class TerminalText {
  /** Complete lines, each ending in "\n". */
  #done = "";
  /** The line being written, and which stream writes it. */
  #line: Line = { text: "", cursor: 0 };
  #stream: string | undefined;
  #clearOnNext = false;
  /** Characters left out at the start (past the limit), since the last clear. */
  dropped = 0;
  /** How many times the output was cleared (`clear`). */
  clears = 0;

  constructor(
    readonly limit: number,
    /** Called when the output is cleared (the images go with the text). */
    readonly onClear: () => void = () => {},
  ) {}

  get text(): string {
    return this.#done + this.#line.text;
  }

  get empty(): boolean {
    return this.#done === "" && this.#line.text === "";
  }

  /** Stream text (of the stream `name`), as a terminal writes it. */
  write(text: string, name = "stdout"): void {
    this.#pendingClear();
    if (name !== this.#stream) this.#endBlock(name);
    const last = text.lastIndexOf("\n");
    if (last === -1) put(this.#line, this.#tail(text));
    // A message far longer than what is kept is walked back from its end, never scanned whole.
    else if (text.length <= 4 * this.limit && !CONTROL.test(text)) this.#writePlain(text, last);
    else this.#writeLines(text, last);
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
    this.#done = "";
    this.#line = { text: "", cursor: 0 };
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

  /** Text with no carriage return or backspace: its middle lines taken whole. */
  #writePlain(text: string, last: number): void {
    const first = text.indexOf("\n");
    overwrite(this.#line, text.slice(0, first));
    this.#done += `${this.#line.text}${text.slice(first, last + 1)}`;
    const rest = text.slice(last + 1);
    this.#line = { text: rest, cursor: rest.length };
  }

  /**
   * Text with line breaks and carriage returns or backspaces. Every line after the first starts afresh, so they are
   * written from the last back, until what is kept is full: a megabyte of redrawn lines costs what 32 KB does.
   */
  #writeLines(text: string, last: number): void {
    const lines: string[] = [];
    let kept = 0;
    let end = last;
    for (;;) {
      // (lastIndexOf from -1 would look at index 0 again: a text that begins with "\n" looped to the limit.)
      const start = end === 0 ? 0 : text.lastIndexOf("\n", end - 1) + 1;
      if (start === 0) break;
      const line = { text: "", cursor: 0 };
      put(line, this.#tail(text.slice(start, end)));
      lines.push(line.text);
      kept += line.text.length + 1;
      end = start - 1;
      if (kept >= this.limit) {
        // The first line and all before it are past what is kept.
        this.dropped += this.#done.length + this.#line.text.length + start;
        this.#done = "";
        this.#line = { text: "", cursor: 0 };
        break;
      }
    }
    if (kept < this.limit) {
      put(this.#line, this.#tail(text.slice(0, end)));
      this.#done += `${this.#line.text}\n`;
    }
    this.#done += lines.reverse().join("\n") + (lines.length ? "\n" : "");
    this.#line = { text: "", cursor: 0 };
    put(this.#line, this.#tail(text.slice(last + 1)));
  }

  /** A line longer than what is kept: its last part only (counted as dropped), as the line's state after it. */
  #tail(piece: string): string {
    const over = piece.length - 4 * this.limit;
    if (over <= 0) return piece;
    this.dropped += over;
    return piece.slice(over);
  }

  /** The block being written ends (another stream or a displayed value follows): its last line is kept as it is. */
  #endBlock(next: string | undefined): void {
    if (this.#line.text) this.#done += `${this.#line.text}\n`;
    this.#line = { text: "", cursor: 0 };
    this.#stream = next;
  }

  #pendingClear(): void {
    if (this.#clearOnNext) this.clear(false);
  }

  /** The last `limit` characters kept; once per write, so a message of many lines is cut once. */
  #trim(): void {
    const over = this.#done.length + this.#line.text.length - this.limit;
    if (over <= 0) return;
    const fromDone = Math.min(over, this.#done.length);
    this.#done = this.#done.slice(fromDone);
    const fromLine = over - fromDone;
    if (fromLine > 0) {
      this.#line.text = this.#line.text.slice(fromLine);
      this.#line.cursor = Math.max(0, this.#line.cursor - fromLine);
    }
    this.dropped += over;
  }
}
