import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  createRun,
  type PendingQuestion,
  ProgrammaticQuestionPort,
  parseReplyText,
  type QuestionCard,
  renderCard,
  TerminalQuestionPort,
} from "../src/index.js";
import { call, textOf, track, workdirWith } from "./helpers.js";

const currency = {
  question: "Which currency should prices use?",
  context: "If you skip, I keep cents.",
  options: [{ label: "EUR" }, { label: "USD", description: "what invoices use" }, { label: "GBP" }],
};

async function withPort(port: ProgrammaticQuestionPort, timeoutSeconds = 5) {
  const workdir = await workdirWith();
  const run = track(
    await createRun({ workdir, conversationId: "conv-9", questions: { port, timeoutSeconds } }),
  );
  return run.link({ surface: "plan" });
}

/** A port whose person answers each card with `answer`. */
function personWho(answer: (q: PendingQuestion) => void) {
  const port = new ProgrammaticQuestionPort();
  const cards: QuestionCard[] = [];
  port.onQuestion((q) => {
    cards.push(q.card);
    answer(q);
  });
  return { port, cards };
}

describe("ask_user outcomes", () => {
  it("an answer names the chosen option by number and label", async () => {
    const { port, cards } = personWho((q) => q.answer({ choices: [2] }));
    const result = await call(await withPort(port), "ask_user", currency);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("The person answered: 2. USD");
    expect(result.structuredContent).toEqual({ outcome: "answered", choices: [{ number: 2, label: "USD" }] });
    expect(cards[0]).toMatchObject({
      id: "q1",
      kind: "question",
      space: "conv-9",
      multiSelect: false,
      allowFreeText: false,
    });
  });

  it("multi-select returns every chosen option", async () => {
    const { port } = personWho((q) => q.answer({ choices: [1, 3] }));
    const result = await call(await withPort(port), "ask_user", { ...currency, multi_select: true });
    expect(textOf(result)).toBe("The person answered: 1. EUR; 3. GBP");
    expect(result.structuredContent).toMatchObject({
      choices: [
        { number: 1, label: "EUR" },
        { number: 3, label: "GBP" },
      ],
    });
  });

  it("free text comes back as typed", async () => {
    const { port } = personWho((q) => q.answer({ text: "  Swiss francs, please " }));
    const result = await call(await withPort(port), "ask_user", {
      question: "Which currency?",
      allow_free_text: true,
    });
    expect(textOf(result)).toBe('The person answered: typed: "Swiss francs, please"');
    expect(result.structuredContent).toEqual({
      outcome: "answered",
      choices: [],
      text: "Swiss francs, please",
    });
  });

  it("a skip is a success that says to go on with the stated assumption and not ask again", async () => {
    const { port } = personWho((q) => q.skip("busy"));
    const result = await call(await withPort(port), "ask_user", currency);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(
      'The person skipped this question. Their note: "busy". Go on with the assumption you stated and do not ask this again.',
    );
    expect(result.structuredContent).toEqual({ outcome: "skipped", choices: [], note: "busy" });
  });

  it("a timeout is an error with the same instruction, and the card is withdrawn", async () => {
    const port = new ProgrammaticQuestionPort({ connected: true });
    const withdrawn: string[] = [];
    port.onWithdrawn((card, reason) => withdrawn.push(`${card.id}:${reason}`));
    const result = await call(await withPort(port, 0.1), "ask_user", currency);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "Nobody answered within 0.1 seconds; there is no answer. Go on with the assumption you stated and do not ask this again.",
    );
    expect(withdrawn).toEqual(["q1:timeout"]);
    expect(port.pending()).toEqual([]);
  });

  it("with no person connected it fails at once and shows no card", async () => {
    // The card would wait 600 s for a person; the call must not wait at all when nobody is connected.
    const port = new ProgrammaticQuestionPort();
    const result = await call(await withPort(port, 600), "ask_user", currency);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      "Nothing was asked: no person is connected to the question port, so there is no answer. Go on with the assumption you stated and do not ask this again.",
    );
    expect(port.pending()).toEqual([]);
  });

  it("a port that returns a reply off the card is not believed", async () => {
    const lying = { isConnected: () => true, ask: async () => ({ kind: "answer" as const, choices: [7] }) };
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, conversationId: "c", questions: lying }));
    const result = await call(await run.link({ surface: "plan" }), "ask_user", currency);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      "the question port returned a reply that does not fit the card: There is no option 7 (choose 1-3)",
    );
  });
});

describe("ask_user bad input", () => {
  const port = new ProgrammaticQuestionPort({ connected: true });
  it.each([
    [
      { question: "Which?" },
      "ask_user needs a way to answer: give `options` (each {label, description?}) or set `allow_free_text: true`.",
    ],
    [
      { question: "Which?", options: [{ label: "a" }], multi_select: true },
      "`multi_select: true` needs at least 2 `options`; give more options or drop multi_select.",
    ],
    [
      { question: "Which?", options: [{ label: "Yes" }, { label: "yes" }] },
      '`options` 1 and 2 have the same label "yes"; make each label distinct.',
    ],
  ])("%j is refused with what to do", async (args, message) => {
    const result = await call(await withPort(port), "ask_user", args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(message);
    expect(port.pending()).toEqual([]);
  });

  it("more than 9 options and an empty question are refused by the schema, naming the argument", async () => {
    const client = await withPort(port);
    const ten = Array.from({ length: 10 }, (_, i) => ({ label: `o${i}` }));
    expect(textOf(await call(client, "ask_user", { question: "q", options: ten }))).toMatch(
      /- `options`: Too big/,
    );
    expect(textOf(await call(client, "ask_user", { question: "  ", allow_free_text: true }))).toMatch(
      /- `question`: Too small/,
    );
  });
});

describe("the programmatic port", () => {
  it("hands waiting cards to a UI that subscribes late, and answers by id", async () => {
    const port = new ProgrammaticQuestionPort({ connected: true });
    const client = await withPort(port);
    const pending = call(client, "ask_user", currency);
    await expect.poll(() => port.pending().length).toBe(1);
    const late: string[] = [];
    port.onQuestion((q) => late.push(q.card.id));
    expect(late).toEqual(["q1"]);
    expect(() => port.reply("q1", { choices: [4] })).toThrow("There is no option 4 (choose 1-3)");
    expect(() => port.reply("q1", { choices: [1, 2] })).toThrow("Only one option may be chosen here");
    expect(() => port.reply("q1", { text: "hm" })).toThrow("This card does not accept typed answers");
    expect(() => port.reply("q9", "skip")).toThrow('no question "q9" is waiting (waiting: q1)');
    port.reply("q1", { choices: [3] });
    expect(textOf(await pending)).toBe("The person answered: 3. GBP");
  });
});

describe("the terminal port (real readline)", () => {
  function terminal() {
    const input = new PassThrough();
    const output = new PassThrough();
    let screen = "";
    output.on("data", (chunk: Buffer) => {
      screen += chunk.toString();
    });
    const port = new TerminalQuestionPort({ input, output });
    return { input, port, screen: () => screen };
  }

  const type = async (t: ReturnType<typeof terminal>, line: string, waitFor: string | RegExp) => {
    await expect.poll(t.screen).toMatch(waitFor);
    t.input.write(`${line}\n`);
  };

  it("prints a numbered card and takes a number", async () => {
    const t = terminal();
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, conversationId: "term", questions: t.port }));
    const pending = call(await run.link({ surface: "plan" }), "ask_user", currency);
    await type(t, "2", /q1> $/);
    expect(textOf(await pending)).toBe("The person answered: 2. USD");
    expect(t.screen()).toContain(
      [
        "── question q1 · term ──",
        "Which currency should prices use?",
        "Why: If you skip, I keep cents.",
        "  1. EUR",
        "  2. USD — what invoices use",
        "  3. GBP",
        "Reply: a number 1-3 · s to skip",
      ].join("\n"),
    );
    t.port.close();
  });

  it("re-asks on a reply that does not fit, then takes several numbers", async () => {
    const t = terminal();
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, conversationId: "term", questions: t.port }));
    const pending = call(await run.link({ surface: "plan" }), "ask_user", {
      ...currency,
      multi_select: true,
    });
    await type(t, "7", /q1> $/);
    await type(t, "maybe", /There is no option 7 \(choose 1-3\)\. Reply: .*\nq1> $/);
    await type(t, "3, 1", /This card takes a number, not text\. .*\nq1> $/);
    expect(textOf(await pending)).toBe("The person answered: 3. GBP; 1. EUR");
    t.port.close();
  });

  it("takes free text and a skip", async () => {
    const t = terminal();
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, conversationId: "term", questions: t.port }));
    const client = await run.link({ surface: "plan" });
    const first = call(client, "ask_user", { question: "Name?", allow_free_text: true });
    await type(t, "inventory-core", /q1> $/);
    expect(textOf(await first)).toBe('The person answered: typed: "inventory-core"');
    const second = call(client, "ask_user", { question: "Name again?", allow_free_text: true });
    await type(t, "s", /q2> $/);
    expect(textOf(await second)).toMatch(/^The person skipped this question\./);
    t.port.close();
  });

  it("a closed input means nobody is there: the call fails instead of hanging", async () => {
    const t = terminal();
    const workdir = await workdirWith();
    const run = track(await createRun({ workdir, conversationId: "term", questions: t.port }));
    const client = await run.link({ surface: "plan" });
    const pending = call(client, "ask_user", currency);
    await expect.poll(t.screen).toMatch(/q1> $/);
    t.input.end();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      "Nothing was asked: the question port failed: the terminal input closed before an answer",
    );
    const after = await call(client, "ask_user", currency);
    expect(textOf(after)).toContain("no person is connected to the question port");
  });

  it("a timeout withdraws the card on screen", async () => {
    const t = terminal();
    const workdir = await workdirWith();
    const run = track(
      await createRun({ workdir, conversationId: "term", questions: { port: t.port, timeoutSeconds: 0.1 } }),
    );
    const result = await call(await run.link({ surface: "plan" }), "ask_user", currency);
    expect(textOf(result)).toMatch(/^Nobody answered within 0.1 seconds/);
    expect(t.screen()).toContain("(q1 withdrawn: timed out)");
    t.port.close();
  });
});

describe("renderCard", () => {
  it("numbers options and says how to reply, for permission cards too", () => {
    const card: QuestionCard = {
      id: "p1",
      kind: "permission",
      space: "s",
      question: "Allow write to write a.txt (1 line)?",
      options: [{ label: "Allow once" }, { label: "Deny" }],
      allowFreeText: true,
      multiSelect: false,
    };
    expect(renderCard(card)).toBe(
      "── permission p1 · s ──\nAllow write to write a.txt (1 line)?\n  1. Allow once\n  2. Deny\nReply: a number 1-2 · your own words · s to skip",
    );
  });
});

describe("parseReplyText", () => {
  const card: QuestionCard = {
    id: "q1",
    kind: "question",
    space: "s",
    question: "Which ones?",
    options: [{ label: "a" }, { label: "b" }],
    allowFreeText: true,
    multiSelect: true,
  };

  it("numbers apart by spaces or one comma are choices; a reply that only starts like them is text, answered at once", () => {
    expect(parseReplyText(card, "1, 2")).toEqual({ reply: { kind: "answer", choices: [1, 2] } });
    expect(parseReplyText(card, "2  1")).toEqual({ reply: { kind: "answer", choices: [2, 1] } });
    expect(parseReplyText(card, "1,,2")).toEqual({ reply: { kind: "answer", choices: [], text: "1,,2" } });
    // Each double space could be split two ways by the old pattern, and a failing match tried every split: 40 gaps
    // were 2^40 tries.
    const typed = `1${"  1".repeat(40)} thanks`;
    expect(parseReplyText(card, typed)).toEqual({ reply: { kind: "answer", choices: [], text: typed } });
  });
});
