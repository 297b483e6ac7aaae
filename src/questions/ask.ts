/**
 * ask_user: turn the model's arguments into a card, and every outcome into an answer the model cannot misread.
 * A skip is a success; a timeout, no person, or a port failure is an error — and none of them is an answer.
 */
import { ToolError } from "../errors.js";
import type { CardInput, QuestionOutcome } from "./card.js";
import type { QuestionDesk } from "./desk.js";
import type { AskUserArgs, AskUserResult } from "./schema.js";

export type { AskUserArgs, AskUserResult };

const GO_ON = "Go on with the assumption you stated and do not ask this again.";

export function cardFromArgs(args: AskUserArgs): CardInput {
  const options = (args.options ?? []).map((o) => ({
    label: o.label.trim(),
    ...(o.description?.trim() ? { description: o.description.trim() } : {}),
  }));
  const allowFreeText = args.allow_free_text ?? false;
  const multiSelect = args.multi_select ?? false;
  if (options.length === 0 && !allowFreeText) {
    throw new ToolError(
      "ask_user needs a way to answer: give `options` (each {label, description?}) or set `allow_free_text: true`.",
    );
  }
  if (multiSelect && options.length < 2) {
    throw new ToolError(
      "`multi_select: true` needs at least 2 `options`; give more options or drop multi_select.",
    );
  }
  const seen = new Map<string, number>();
  options.forEach((o, i) => {
    const key = o.label.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) {
      throw new ToolError(
        `\`options\` ${first + 1} and ${i + 1} have the same label "${o.label}"; make each label distinct.`,
      );
    }
    seen.set(key, i);
  });
  return {
    kind: "question",
    question: args.question.trim(),
    ...(args.context?.trim() ? { context: args.context.trim() } : {}),
    options,
    allowFreeText,
    multiSelect,
  };
}

export async function askUser(
  desk: QuestionDesk,
  args: AskUserArgs,
  signal: AbortSignal,
): Promise<{ text: string; structured: AskUserResult }> {
  const card = cardFromArgs(args);
  const outcome = await desk.ask(card, signal);
  return describeOutcome(card, outcome, desk);
}

function describeOutcome(
  card: CardInput,
  outcome: QuestionOutcome,
  desk: QuestionDesk,
): { text: string; structured: AskUserResult } {
  switch (outcome.kind) {
    case "answer": {
      const choices = outcome.choices.map((n) => ({ number: n, label: card.options[n - 1]?.label ?? "" }));
      const parts = choices.map((c) => `${c.number}. ${c.label}`);
      if (outcome.text) parts.push(`typed: "${outcome.text}"`);
      const text = `The person answered: ${parts.join("; ")}`;
      return {
        text,
        structured: { outcome: "answered", choices, ...(outcome.text ? { text: outcome.text } : {}) },
      };
    }
    case "skip": {
      const note = outcome.note ? ` Their note: "${outcome.note}".` : "";
      return {
        text: `The person skipped this question.${note} ${GO_ON}`,
        structured: { outcome: "skipped", choices: [], ...(outcome.note ? { note: outcome.note } : {}) },
      };
    }
    case "timeout":
      throw new ToolError(`Nobody answered within ${desk.timeoutText}; there is no answer. ${GO_ON}`);
    case "unavailable":
      throw new ToolError(`Nothing was asked: ${outcome.reason}, so there is no answer. ${GO_ON}`);
    case "cancelled":
      throw new ToolError("The question was withdrawn because the call was cancelled; there is no answer.");
  }
}
