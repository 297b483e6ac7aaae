/**
 * The tour `npm start` runs: a copy of examples/workspace, a client linked per surface, and every tool that
 * exists so far called for real, printed as a transcript. The "person" answering cards here is a script, and the
 * transcript says so.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { packageRoot } from "../home.js";
import { renderCard } from "../questions/card.js";
import { ProgrammaticQuestionPort } from "../questions/programmatic.js";
import { createRun, type Run } from "../run.js";
import type { RunLink } from "../run-link.js";
import { SURFACES, type Surface } from "../surfaces.js";
import { commandBackend } from "../vibe/command.js";
import { indent, renderCall, renderResult } from "./render.js";
import { type Answer, TOUR_STEPS, type Tour } from "./tour-steps.js";

/** The sample project, shipped with the package (examples/workspace). */
const WORKSPACE = path.join(packageRoot(), "examples", "workspace");

export async function runTour(out: (line: string) => void = (line) => console.log(line)): Promise<void> {
  const workdir = await mkdtemp(path.join(tmpdir(), "runbound-tour-"));
  await cp(WORKSPACE, workdir, { recursive: true });
  const { person, script } = scriptedPerson(out);
  // A worker here is a small shell program (the command backend); a harness would map tiers to coding agents or
  // to models (modelBackend). It only reads, so the tour declares that it honours every surface (plan included).
  const worker = commandBackend(
    "sh",
    [
      "-c",
      'brief=$(cat); printf "%s: %s functions in python/inventory/stock.py" "$brief" "$(grep -c "def " python/inventory/stock.py)"',
    ],
    { surfaces: ["full", "plan", "readonly"] },
  );
  const run = await createRun({
    workdir,
    conversationId: "tour",
    questions: { port: person, space: "tour" },
    vibe: { fast: worker, maxWorkers: 2 },
  });
  const heading = (text: string) => out(`\n━━ ${text} ━━`);
  try {
    out(`runbound tour — a copy of examples/workspace at ${workdir}`);
    out(`approvals on the full surface: ${run.approvals.mode}`);

    heading("1. What each surface sees (tier decides visibility)");
    const clients = await linkEverySurface(run, out);
    const call = async (
      client: RunLink,
      surface: Surface,
      name: string,
      args: Record<string, unknown>,
      ...answers: Answer[]
    ) => {
      script.push(...answers);
      out(renderCall(surface, name, args));
      const result = await client.callTool({ name, arguments: args });
      // Answers for cards the call did not raise are not left for the next call's cards.
      script.length = 0;
      out(renderResult(result as Parameters<typeof renderResult>[0]));
    };

    const tour: Tour = {
      full: (name, args, ...answers) => call(clients.get("full")!, "full", name, args, ...answers),
      plan: (name, args, ...answers) => call(clients.get("plan")!, "plan", name, args, ...answers),
      out,
      person,
    };
    for (const [i, step] of TOUR_STEPS.entries()) {
      heading(`${i + 2}. ${step.title}`);
      await step.run(tour);
    }

    heading(`${TOUR_STEPS.length + 2}. A run with no approver and no question port fails closed`);
    await tourFailClosed(workdir, out);
  } finally {
    await run.dispose();
    await rm(workdir, { recursive: true, force: true });
  }
  out(
    `\nDone: the run was disposed and its copy of the workspace removed. Try it by hand: npx runbound console --workdir <dir>`,
  );
}

/** A scripted person: each card is printed, then answered with the next scripted reply (a skip when none is left). */
function scriptedPerson(out: (line: string) => void): { person: ProgrammaticQuestionPort; script: Answer[] } {
  const person = new ProgrammaticQuestionPort();
  const script: Answer[] = [];
  person.onQuestion((q) => {
    out(indent(renderCard(q.card), "  │ "));
    const reply = script.shift() ?? "skip";
    out(`  │ (scripted person) ${reply === "skip" ? "skips" : `answers ${JSON.stringify(reply)}`}`);
    if (reply === "skip") q.skip();
    else q.answer(reply);
  });
  return { person, script };
}

/** A client per surface, and what each lists (a star marks the tiers that pass the approval gate on full). */
async function linkEverySurface(run: Run, out: (line: string) => void): Promise<Map<Surface, RunLink>> {
  const clients = new Map<Surface, RunLink>();
  const lists = new Map<Surface, string[]>();
  for (const surface of SURFACES) {
    const client = await run.link({ surface });
    clients.set(surface, client);
    lists.set(
      surface,
      (await client.listTools()).tools.map((t) => t.name),
    );
  }
  // The tiers the approval gate stands before on full: what plan mode does not list.
  const plan = new Set(lists.get("plan"));
  for (const [surface, names] of lists)
    out(`${surface.padEnd(9)} ${names.map((name) => `${name}${plan.has(name) ? "" : "*"}`).join(" · ")}`);
  out("(* write or exec tier: listed on full only, and each call there goes through the approval gate)");
  return clients;
}

async function tourFailClosed(workdir: string, out: (line: string) => void): Promise<void> {
  const bare: Run = await createRun({ workdir, conversationId: "tour-bare" });
  try {
    const client = await bare.link({ surface: "full" });
    const args = { path: "notes/unapproved.md", content: "x" };
    out(renderCall("full", "write", args));
    out(
      renderResult(
        (await client.callTool({ name: "write", arguments: args })) as Parameters<typeof renderResult>[0],
      ),
    );
  } finally {
    await bare.dispose();
  }
}
