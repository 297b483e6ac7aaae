/**
 * A question port on a terminal: prints the numbered card and reads the reply (numbers, several numbers, free
 * text, or "s" to skip), asking again until the reply fits. One card at a time.
 */
import type { Readable, Writable } from "node:stream";
import {
  parseReplyText,
  type QuestionCard,
  type QuestionPort,
  type QuestionReply,
  renderCard,
} from "./card.js";
import { LineReader } from "./lines.js";

export interface TerminalPortOptions {
  readonly input?: Readable;
  readonly output?: Writable;
  /** Share the console's line reader instead of opening one on input/output. */
  readonly lines?: LineReader;
}

export class TerminalQuestionPort implements QuestionPort {
  readonly #output: Writable;
  readonly #lines: LineReader;
  readonly #ownsLines: boolean;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: TerminalPortOptions = {}) {
    this.#output = options.output ?? process.stdout;
    this.#lines = options.lines ?? new LineReader(options.input ?? process.stdin, this.#output);
    this.#ownsLines = options.lines === undefined;
  }

  isConnected(): boolean {
    return !this.#lines.closed;
  }

  ask(card: QuestionCard, signal: AbortSignal): Promise<QuestionReply> {
    const turn = this.#queue.then(() => this.#askNow(card, signal));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  /** Closes the line reader this port opened (not one it was given). */
  close(): void {
    if (this.#ownsLines) this.#lines.close();
  }

  async #askNow(card: QuestionCard, signal: AbortSignal): Promise<QuestionReply> {
    signal.throwIfAborted();
    this.#output.write(`\n${renderCard(card)}\n`);
    for (;;) {
      let typed: string;
      try {
        typed = await this.#lines.read(`${card.id}> `, signal);
      } catch (error) {
        if (signal.aborted) this.#output.write(`\n(${card.id} withdrawn: ${withdrawnReason(signal)})\n`);
        throw error;
      }
      const parsed = parseReplyText(card, typed);
      if ("reply" in parsed) return parsed.reply;
      this.#output.write(`${parsed.error}\n`);
    }
  }
}

function withdrawnReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name === "TimeoutError" ? "timed out" : "cancelled";
}
