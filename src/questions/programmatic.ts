/**
 * A question port for a harness UI: each card is handed to the subscribed listeners as a PendingQuestion that the
 * UI answers or skips; a card that times out or is cancelled is withdrawn (listeners are told). A person counts as
 * connected while a listener is subscribed, unless the harness sets presence explicitly.
 */
import { checkReply, type QuestionCard, type QuestionPort, type QuestionReply } from "./card.js";

export interface PendingQuestion {
  readonly card: QuestionCard;
  /** Answers with the 1-based option numbers shown on the card and/or typed text; throws if it does not fit. */
  answer(reply: { choices?: readonly number[]; text?: string }): void;
  skip(note?: string): void;
}

export type WithdrawnReason = "timeout" | "cancelled";

type QuestionListener = (question: PendingQuestion) => void;
type WithdrawnListener = (card: QuestionCard, reason: WithdrawnReason) => void;

export class ProgrammaticQuestionPort implements QuestionPort {
  readonly #pending = new Map<string, PendingQuestion>();
  readonly #onQuestion = new Set<QuestionListener>();
  readonly #onWithdrawn = new Set<WithdrawnListener>();
  #presence: boolean | undefined;

  /** `connected`: fixed presence; omitted → connected while a question listener is subscribed. */
  constructor(options: { connected?: boolean } = {}) {
    this.#presence = options.connected;
  }

  setConnected(connected: boolean | undefined): void {
    this.#presence = connected;
  }

  isConnected(): boolean {
    return this.#presence ?? this.#onQuestion.size > 0;
  }

  /** Subscribes a UI; returns the unsubscribe function. Cards already waiting are handed over at once. */
  onQuestion(listener: QuestionListener): () => void {
    this.#onQuestion.add(listener);
    for (const question of this.#pending.values()) listener(question);
    return () => this.#onQuestion.delete(listener);
  }

  onWithdrawn(listener: WithdrawnListener): () => void {
    this.#onWithdrawn.add(listener);
    return () => this.#onWithdrawn.delete(listener);
  }

  /** Cards waiting for a person now. */
  pending(): PendingQuestion[] {
    return [...this.#pending.values()];
  }

  /** Answers a waiting card by id (for UIs that keep ids rather than PendingQuestion objects). */
  reply(id: string, reply: { choices?: readonly number[]; text?: string } | "skip"): void {
    const question = this.#pending.get(id);
    if (!question)
      throw new Error(
        `no question "${id}" is waiting (waiting: ${[...this.#pending.keys()].join(", ") || "none"})`,
      );
    if (reply === "skip") question.skip();
    else question.answer(reply);
  }

  ask(card: QuestionCard, signal: AbortSignal): Promise<QuestionReply> {
    return new Promise<QuestionReply>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const settle = (reply: QuestionReply) => {
        signal.removeEventListener("abort", onAbort);
        this.#pending.delete(card.id);
        resolve(reply);
      };
      const onAbort = () => {
        this.#pending.delete(card.id);
        const reason: unknown = signal.reason;
        const why: WithdrawnReason =
          reason instanceof Error && reason.name === "TimeoutError" ? "timeout" : "cancelled";
        for (const listener of this.#onWithdrawn) listener(card, why);
        reject(reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const question: PendingQuestion = {
        card,
        answer: ({ choices = [], text }) => {
          if (!this.#pending.has(card.id)) throw new Error(`question ${card.id} is no longer waiting`);
          const reply: QuestionReply = text?.trim()
            ? { kind: "answer", choices, text: text.trim() }
            : { kind: "answer", choices };
          const problem = checkReply(card, reply);
          if (problem) throw new Error(problem);
          settle(reply);
        },
        skip: (note) => {
          if (!this.#pending.has(card.id)) throw new Error(`question ${card.id} is no longer waiting`);
          settle(note ? { kind: "skip", note } : { kind: "skip" });
        },
      };
      this.#pending.set(card.id, question);
      for (const listener of this.#onQuestion) listener(question);
    });
  }
}
