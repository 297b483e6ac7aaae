/**
 * The question card: what a person sees (numbered options, optional free text, skip) and what comes back. Every
 * port renders and parses with these functions, so a terminal, a UI and the transcript agree on the numbers.
 */

export type CardKind = "question" | "permission";

export interface QuestionOption {
  readonly label: string;
  readonly description?: string;
}

export interface CardInput {
  readonly kind: CardKind;
  readonly question: string;
  readonly context?: string;
  readonly options: readonly QuestionOption[];
  readonly allowFreeText: boolean;
  readonly multiSelect: boolean;
}

export interface QuestionCard extends CardInput {
  /** "q1", "q2", … for questions; "p1", … for permission cards. */
  readonly id: string;
  /** The target space (conversation) the card is shown in. */
  readonly space: string;
}

/** What a person did with a card. `choices` are the 1-based numbers shown on the card. */
export type QuestionReply =
  | { readonly kind: "answer"; readonly choices: readonly number[]; readonly text?: string }
  | { readonly kind: "skip"; readonly note?: string };

/** A reply, or why there is none. */
export type QuestionOutcome =
  | QuestionReply
  | { readonly kind: "timeout" }
  | { readonly kind: "unavailable"; readonly reason: string }
  | { readonly kind: "cancelled" };

/**
 * A port to a person. `ask` resolves with the person's reply and rejects when `signal` aborts (the card is then
 * withdrawn). `isConnected` says whether anybody is there to answer right now: asking nobody must fail at once.
 */
export interface QuestionPort {
  isConnected(): boolean;
  ask(card: QuestionCard, signal: AbortSignal): Promise<QuestionReply>;
}

export function renderCard(card: QuestionCard): string {
  const lines = [`── ${card.kind} ${card.id} · ${card.space} ──`, card.question];
  if (card.context) lines.push(`Why: ${card.context}`);
  card.options.forEach((option, i) => {
    lines.push(`  ${i + 1}. ${option.label}${option.description ? ` — ${option.description}` : ""}`);
  });
  lines.push(replyHint(card));
  return lines.join("\n");
}

export function replyHint(card: CardInput): string {
  const parts: string[] = [];
  const n = card.options.length;
  if (n > 0) parts.push(n === 1 ? "1 to choose it" : `a number 1-${n}`);
  if (n > 1 && card.multiSelect) parts.push("several numbers, e.g. 1,3");
  if (card.allowFreeText) parts.push("your own words");
  parts.push("s to skip");
  return `Reply: ${parts.join(" · ")}`;
}

const SKIP_WORDS = new Set(["s", "skip", "/skip"]);
// Numbers apart by spaces, or by one comma with spaces around it; written so that no text can be split two ways (as
// `\s*[,\s]\s*` could, which made a failing match try every split: exponential in the number of gaps).
const NUMBER_LIST = /^\d+(?:(?:\s*,\s*|\s+)\d+)*$/;

/** Parses what a person typed at a card: numbers, free text or a skip. */
export function parseReplyText(card: CardInput, typed: string): { reply: QuestionReply } | { error: string } {
  const text = typed.trim();
  if (text === "") return { error: `Nothing typed. ${replyHint(card)}` };
  if (SKIP_WORDS.has(text.toLowerCase())) return { reply: { kind: "skip" } };
  if (card.options.length > 0 && NUMBER_LIST.test(text)) {
    const choices = [...new Set(text.split(/[,\s]+/).map(Number))];
    const reply: QuestionReply = { kind: "answer", choices };
    const problem = checkReply(card, reply);
    return problem ? { error: `${problem}. ${replyHint(card)}` } : { reply };
  }
  if (!card.allowFreeText) return { error: `This card takes a number, not text. ${replyHint(card)}` };
  return { reply: { kind: "answer", choices: [], text } };
}

/** Why a reply does not fit its card, or undefined when it does. Ports are checked too: no reply is guessed. */
export function checkReply(card: CardInput, reply: QuestionReply): string | undefined {
  if (reply.kind === "skip") return undefined;
  const n = card.options.length;
  for (const choice of reply.choices) {
    if (!Number.isInteger(choice) || choice < 1 || choice > n) {
      return n === 0 ? "This card has no numbered options" : `There is no option ${choice} (choose 1-${n})`;
    }
  }
  if (new Set(reply.choices).size !== reply.choices.length) return "The same option was chosen twice";
  if (reply.choices.length > 1 && !card.multiSelect) return "Only one option may be chosen here";
  const text = reply.text?.trim() ?? "";
  if (text && !card.allowFreeText) return "This card does not accept typed answers";
  if (reply.choices.length === 0 && !text) return "The reply chose nothing and typed nothing";
  return undefined;
}
