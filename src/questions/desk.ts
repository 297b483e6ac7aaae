/**
 * The run's side of asking a person: a port, the target space its cards appear in, and a deadline. The desk
 * turns every way a question can end into an outcome — it never invents an answer.
 */

import { errorMessage } from "../errors.js";
import { visibleLine, visibleText } from "../files/visible.js";
import { deadline } from "../signals.js";
import { type CardInput, checkReply, type QuestionOutcome, type QuestionPort } from "./card.js";

export interface QuestionDeskOptions {
  readonly port: QuestionPort;
  /** Where the cards are shown (a conversation, a channel). */
  readonly space: string;
  /** How long a card waits for a person. Default 600 s. */
  readonly timeoutSeconds?: number;
}

export class QuestionDesk {
  readonly port: QuestionPort;
  readonly space: string;
  readonly timeoutMs: number;
  #asked = { question: 0, permission: 0 };

  constructor(options: QuestionDeskOptions) {
    this.port = options.port;
    this.space = options.space;
    this.timeoutMs = Math.round((options.timeoutSeconds ?? 600) * 1000);
  }

  get timeoutText(): string {
    const s = this.timeoutMs / 1000;
    return s >= 120 && s % 60 === 0 ? `${s / 60} minutes` : `${s} seconds`;
  }

  async ask(input: CardInput, signal: AbortSignal): Promise<QuestionOutcome> {
    if (signal.aborted) return { kind: "cancelled" };
    if (!this.port.isConnected())
      return { kind: "unavailable", reason: "no person is connected to the question port" };
    this.#asked[input.kind] += 1;
    // A model (or a repository's file names) wrote these texts: nothing in them may hide from the person.
    const card = {
      ...input,
      question: visibleText(input.question),
      ...(input.context !== undefined ? { context: visibleText(input.context) } : {}),
      options: input.options.map((o) => ({
        label: visibleLine(o.label),
        ...(o.description !== undefined ? { description: visibleLine(o.description) } : {}),
      })),
      id: `${input.kind === "question" ? "q" : "p"}${this.#asked[input.kind]}`,
      space: this.space,
    };
    // Aborted by the deadline or by the call's own signal (cancelled is told apart below).
    const timeout = deadline(this.timeoutMs, signal);
    try {
      const reply = await this.port.ask(card, timeout.signal);
      const problem = checkReply(card, reply);
      if (problem)
        return {
          kind: "unavailable",
          reason: `the question port returned a reply that does not fit the card: ${problem}`,
        };
      return reply;
    } catch (error) {
      if (signal.aborted) return { kind: "cancelled" };
      if (timeout.signal.aborted) return { kind: "timeout" };
      return { kind: "unavailable", reason: `the question port failed: ${errorMessage(error)}` };
    } finally {
      timeout.dispose();
    }
  }
}
