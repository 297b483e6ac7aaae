/**
 * The tour `npm start` runs: a copy of examples/workspace, a client linked per surface, and every tool that
 * exists so far called for real, printed as a transcript. The "person" answering cards here is a script, and the
 * transcript says so.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { packageRoot } from "../home.js";
import { renderCard } from "../questions/card.js";
import { ProgrammaticQuestionPort } from "../questions/programmatic.js";
import { createRun, type Run } from "../run.js";
import { SURFACES, type Surface } from "../surfaces.js";
import { commandBackend } from "../workers/command.js";
import { indent, renderCall, renderResult } from "./render.js";

/** The sample project, shipped with the package (examples/workspace). */
const WORKSPACE = path.join(packageRoot(), "examples", "workspace");

type Answer = { choices?: number[]; text?: string } | "skip";

export async function runTour(out: (line: string) => void = (line) => console.log(line)): Promise<void> {
  const workdir = await mkdtemp(path.join(tmpdir(), "runbound-tour-"));
  await cp(WORKSPACE, workdir, { recursive: true });
  // A scripted person: each card is answered with the next scripted reply, and the card is printed first.
  const person = new ProgrammaticQuestionPort();
  const script: Answer[] = [];
  person.onQuestion((q) => {
    out(indent(renderCard(q.card), "  │ "));
    const reply = script.shift() ?? "skip";
    out(`  │ (scripted person) ${reply === "skip" ? "skips" : `answers ${JSON.stringify(reply)}`}`);
    if (reply === "skip") q.skip();
    else q.answer(reply);
  });
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
    const clients = new Map<Surface, Client>();
    for (const surface of SURFACES) {
      const client = await run.link({ surface });
      clients.set(surface, client);
      const { tools } = await client.listTools();
      out(
        `${surface.padEnd(9)} ${tools.map((t) => `${t.name}${t.annotations?.readOnlyHint ? "" : "*"}`).join(" · ")}`,
      );
    }
    out("(* write or exec tier: listed on full only, and each call there goes through the approval gate)");
    const full = clients.get("full")!;
    const plan = clients.get("plan")!;
    const call = async (
      client: Client,
      surface: Surface,
      name: string,
      args: Record<string, unknown>,
      ...answers: Answer[]
    ) => {
      script.push(...answers);
      out(renderCall(surface, name, args));
      out(
        renderResult(
          (await client.callTool({ name, arguments: args })) as Parameters<typeof renderResult>[0],
        ),
      );
    };

    heading("2. read — line numbers, directories, confinement");
    await call(full, "full", "read", { path: "python/inventory/stock.py", offset: 14, limit: 8 });
    await call(full, "full", "read", { path: "go" });
    await call(full, "full", "read", { path: "../../etc/passwd" });

    heading("3. write / edit / apply_patch — each asks the person first (permission card)");
    await call(
      full,
      "full",
      "write",
      { path: "notes/todo.md", content: "# Todo\n- count returns\n" },
      { choices: [1] },
    );
    await call(
      full,
      "full",
      "edit",
      {
        path: "ts/src/stock.ts",
        old_string: "if (have < count)",
        new_string: "if (count <= 0 || have < count)",
      },
      { choices: [2] },
    );
    out("(the person allowed edit for the rest of the run; the next edit asks nobody)");
    await call(full, "full", "edit", {
      path: "notes/todo.md",
      old_string: "- count returns",
      new_string: "- count returns\n- audit",
    });
    await call(
      full,
      "full",
      "apply_patch",
      {
        patch: [
          "*** Begin Patch",
          "*** Update File: python/inventory/stock.py",
          "@@ def remove(self, sku: str, count: int = 1) -> None:",
          "-        if self.counts.get(sku, 0) < count:",
          "+        if count <= 0 or self.counts.get(sku, 0) < count:",
          "*** Add File: python/inventory/report.py",
          "+def report(stock):",
          '+    return f"{len(stock.items)} items, {stock.value_cents()} cents"',
          "*** End Patch",
        ].join("\n"),
      },
      { choices: [1] },
    );
    out(
      "A patch whose second file does not match changes nothing — not even the first file, whose hunk did match:",
    );
    await call(
      full,
      "full",
      "apply_patch",
      {
        patch: [
          "*** Begin Patch",
          "*** Update File: go/stock.go",
          "-	s.counts[sku] -= count",
          "+	s.counts[sku] = s.counts[sku] - count",
          "*** Update File: go/main.go",
          '-	fmt.Println("total", stock.ValueCents())',
          '+	fmt.Println("sum", stock.ValueCents())',
          "*** End Patch",
        ].join("\n"),
      },
      { choices: [1] },
    );
    await call(full, "full", "read", { path: "go/stock.go", offset: 28, limit: 2 });
    out("The person can say no:");
    await call(
      full,
      "full",
      "write",
      { path: "ts/src/extra.ts", content: "export {};\n" },
      { choices: [3], text: "not now" },
    );

    heading("4. plan surface — write-tier tools are absent, and a crafted call is refused at dispatch");
    await call(plan, "plan", "write", { path: "notes/plan.md", content: "x" });

    heading("5. ask_user — a numbered card; an answer, a multi-select, a skip");
    await call(
      full,
      "full",
      "ask_user",
      {
        question: "Which currency should prices be shown in?",
        context: "The report prints cents today. If you skip, I keep cents.",
        options: [{ label: "EUR" }, { label: "USD", description: "what the shop's invoices use" }],
      },
      { choices: [2] },
    );
    await call(
      full,
      "full",
      "ask_user",
      {
        question: "Which languages should the next report cover?",
        options: [{ label: "python" }, { label: "go" }, { label: "rust" }],
        multi_select: true,
      },
      { choices: [1, 3] },
    );
    await call(
      full,
      "full",
      "ask_user",
      {
        question: "Any naming preference for the new module?",
        context: "If you skip, I name it report.py.",
        allow_free_text: true,
      },
      "skip",
    );
    out("With nobody at the question port, ask_user fails at once — it never makes up an answer:");
    person.setConnected(false);
    await call(full, "full", "ask_user", { question: "Still there?", allow_free_text: true });
    person.setConnected(undefined);

    heading("6. lsp — real language servers, a symbol addressed by line + name (never a column)");
    await call(plan, "plan", "lsp", { action: "status" });
    await call(plan, "plan", "lsp", {
      action: "definition",
      file: "ts/src/main.ts",
      line: 4,
      symbol: "stock.add",
    });
    await call(plan, "plan", "lsp", {
      action: "references",
      file: "go/main.go",
      line: 7,
      symbol: "stock.Add",
    });
    await call(plan, "plan", "lsp", {
      action: "hover",
      file: "python/inventory/stock.py",
      line: 21,
      symbol: "remove",
    });
    await call(plan, "plan", "lsp", { action: "symbols", file: "c/stock.c" });
    out("A symbol that is not on the given line is an error that says where it is, never a silent drift:");
    await call(plan, "plan", "lsp", {
      action: "definition",
      file: "ts/src/main.ts",
      line: 2,
      symbol: "Stock",
    });
    out("Diagnostics on write: only what is new is reported, and a fix is counted:");
    await call(full, "full", "edit", {
      path: "go/stock.go",
      old_string: "return total",
      new_string: "return totl",
    });
    await call(full, "full", "edit", {
      path: "go/stock.go",
      old_string: "return totl",
      new_string: "return total",
    });
    out("A project-wide rename is write-tier: absent on plan, behind a permission card on full:");
    await call(
      full,
      "full",
      "lsp_rename",
      { file: "ts/src/stock.ts", line: 11, symbol: "add", new_name: "insert" },
      { choices: [1] },
    );

    heading("7. ast_grep / ast_edit / resolve — code found by its shape, rewritten all or nothing");
    await call(plan, "plan", "ast_grep", { pattern: "if ($X != null) $X!.dispose()", language: "dart" });
    await call(plan, "plan", "ast_grep", { pattern: "fmt.Println($$$ARGS)", path: "go", language: "go" });
    out(
      "A pattern that no context can parse is said to be unparseable, never searched and silently not found:",
    );
    await call(plan, "plan", "ast_grep", { pattern: 'print("unclosed', path: "python/inventory/stock.py" });
    await call(
      full,
      "full",
      "ast_edit",
      { pattern: "fmt.Println($$$ARGS)", rewrite: "log.Println($$$ARGS)", path: "go", language: "go" },
      { choices: [1] },
    );
    out(
      "Nothing was written yet; resolve accepts it (every file checked against what was staged) or discards it:",
    );
    await call(full, "full", "resolve", { edit_id: "edit_1", action: "discard" }, { choices: [1] });

    heading("8. debug — a real debugger (debugpy here), one call per step with where it stopped");
    await call(full, "full", "debug", { operation: "adapters" }, { choices: [2] });
    await call(full, "full", "debug", {
      operation: "breakpoints",
      file: "python/inventory/stock.py",
      lines: [32],
    });
    await call(full, "full", "debug", { operation: "launch", program: "python/inventory/stock.py" });
    await call(full, "full", "debug", { operation: "step_in" });
    await call(full, "full", "debug", { operation: "evaluate", expression: "item.price_cents * count" });
    await call(full, "full", "debug", {
      operation: "breakpoints",
      file: "python/inventory/stock.py",
      lines: [],
    });
    await call(full, "full", "debug", { operation: "continue" });
    await call(full, "full", "debug", { operation: "output" });
    await call(full, "full", "debug", { operation: "terminate" });

    heading("9. eval — persistent Python and JavaScript kernels (Jupyter), tool() inside a cell");
    await call(
      full,
      "full",
      "eval",
      {
        code: "import pandas as pd\nstock = pd.DataFrame({'sku': ['A1', 'B2'], 'count': [3, 5]})\nstock",
        description: "load a small stock table with pandas",
      },
      { choices: [2] },
    );
    await call(full, "full", "eval", {
      code: "stock['count'].sum()",
      description: "count every item in the table",
    });
    await call(full, "full", "eval", {
      code: "import matplotlib.pyplot as plt\nstock.plot.bar(x='sku', y='count')\nplt.show()",
      description: "plot the counts as a bar chart",
    });
    await call(full, "full", "eval", {
      code: "r = tool('read', {'path': 'go/go.mod'})\nprint(r['total_lines'], 'lines read through the run')",
      description: "read a file through the run's tools",
    });
    await call(full, "full", "eval", {
      code: "const items = [3, 5]; items.reduce((a, b) => a + b)",
      description: "sum the counts again in JavaScript",
      language: "javascript",
    });

    heading("10. vibe_* — background workers: spawn returns at once, wait collects the result");
    await call(plan, "plan", "vibe_spawn", { brief: "count the functions", label: "counter" });
    await call(plan, "plan", "vibe_wait", { worker_id: "w1", timeout_seconds: 30 });
    await call(plan, "plan", "vibe_list", {});

    heading("11. A run with no approver and no question port fails closed");
    await tourFailClosed(workdir, out);
  } finally {
    await run.dispose();
    await rm(workdir, { recursive: true, force: true });
  }
  out(
    `\nDone: the run was disposed and its copy of the workspace removed. Try it by hand: npx runbound console --workdir <dir>`,
  );
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
