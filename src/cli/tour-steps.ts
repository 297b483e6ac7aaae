/**
 * The tour's steps after the surfaces are shown: each calls the run's tools for real, as a model would on the
 * surface named, with the scripted person's answers to the cards it raises.
 */
import type { ProgrammaticQuestionPort } from "../questions/programmatic.js";

/** An answer of the scripted person to the next card. */
export type Answer = { choices?: number[]; text?: string } | "skip";

/** What a step works with: a call on full or plan (printed with its result), the transcript, the person. */
export interface Tour {
  full(name: string, args: Record<string, unknown>, ...answers: Answer[]): Promise<void>;
  plan(name: string, args: Record<string, unknown>, ...answers: Answer[]): Promise<void>;
  out(line: string): void;
  readonly person: ProgrammaticQuestionPort;
}

export interface TourStep {
  readonly title: string;
  run(t: Tour): Promise<void>;
}

export const TOUR_STEPS: readonly TourStep[] = [
  {
    title: "read — line numbers, directories, confinement",
    async run(t) {
      await t.full("read", { path: "python/inventory/stock.py", offset: 14, limit: 8 });
      await t.full("read", { path: "go" });
      await t.full("read", { path: "../../etc/passwd" });
    },
  },
  {
    title: "write / edit / apply_patch — each asks the person first (permission card)",
    async run(t) {
      await t.full(
        "write",
        { path: "notes/todo.md", content: "# Todo\n- count returns\n" },
        { choices: [1] },
      );
      await t.full(
        "edit",
        {
          path: "ts/src/stock.ts",
          old_string: "if (have < count)",
          new_string: "if (count <= 0 || have < count)",
        },
        { choices: [2] },
      );
      t.out("(the person allowed edit for the rest of the run; the next edit asks nobody)");
      await t.full("edit", {
        path: "notes/todo.md",
        old_string: "- count returns",
        new_string: "- count returns\n- audit",
      });
      await t.full(
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
      t.out(
        "A patch whose second file does not match is refused before the person is asked, and changes nothing — not even the first file, whose hunk did match:",
      );
      await t.full("apply_patch", {
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
      });
      await t.full("read", { path: "go/stock.go", offset: 28, limit: 2 });
      t.out("The person can say no:");
      await t.full(
        "write",
        { path: "ts/src/extra.ts", content: "export {};\n" },
        { choices: [3], text: "not now" },
      );
    },
  },
  {
    title: "plan surface — write-tier tools are absent, and a crafted call is refused at dispatch",
    async run(t) {
      await t.plan("write", { path: "notes/plan.md", content: "x" });
    },
  },
  {
    title: "ask_user — a numbered card; an answer, a multi-select, a skip",
    async run(t) {
      await t.full(
        "ask_user",
        {
          question: "Which currency should prices be shown in?",
          context: "The report prints cents today. If you skip, I keep cents.",
          options: [{ label: "EUR" }, { label: "USD", description: "what the shop's invoices use" }],
        },
        { choices: [2] },
      );
      await t.full(
        "ask_user",
        {
          question: "Which languages should the next report cover?",
          options: [{ label: "python" }, { label: "go" }, { label: "rust" }],
          multi_select: true,
        },
        { choices: [1, 3] },
      );
      await t.full(
        "ask_user",
        {
          question: "Any naming preference for the new module?",
          context: "If you skip, I name it report.py.",
          allow_free_text: true,
        },
        "skip",
      );
      t.out("With nobody at the question port, ask_user fails at once — it never makes up an answer:");
      t.person.setConnected(false);
      await t.full("ask_user", { question: "Still there?", allow_free_text: true });
      t.person.setConnected(undefined);
    },
  },
  {
    title: "lsp — real language servers, a symbol addressed by line + name (never a column)",
    async run(t) {
      await t.plan("lsp", { action: "status" });
      await t.plan("lsp", {
        action: "definition",
        file: "ts/src/main.ts",
        line: 4,
        symbol: "stock.add",
      });
      await t.plan("lsp", {
        action: "references",
        file: "go/main.go",
        line: 7,
        symbol: "stock.Add",
      });
      await t.plan("lsp", {
        action: "hover",
        file: "python/inventory/stock.py",
        line: 21,
        symbol: "remove",
      });
      await t.plan("lsp", { action: "symbols", file: "c/stock.c" });
      t.out(
        "A symbol that is not on the given line is an error that says where it is, never a silent drift:",
      );
      await t.plan("lsp", {
        action: "definition",
        file: "ts/src/main.ts",
        line: 2,
        symbol: "Stock",
      });
      t.out("Diagnostics on write: only what is new is reported, and a fix is counted:");
      await t.full("edit", {
        path: "go/stock.go",
        old_string: "return total",
        new_string: "return totl",
      });
      await t.full("edit", {
        path: "go/stock.go",
        old_string: "return totl",
        new_string: "return total",
      });
      t.out("A project-wide rename is write-tier: absent on plan, behind a permission card on full:");
      await t.full(
        "lsp_rename",
        { file: "ts/src/stock.ts", line: 11, symbol: "add", new_name: "insert" },
        { choices: [1] },
      );
    },
  },
  {
    title: "ast_grep / ast_edit / resolve — code found by its shape, rewritten all or nothing",
    async run(t) {
      await t.plan("ast_grep", { pattern: "if ($X != null) $X!.dispose()", language: "dart" });
      await t.plan("ast_grep", { pattern: "fmt.Println($$$ARGS)", path: "go", language: "go" });
      t.out(
        "A pattern that no context can parse is said to be unparseable, never searched and silently not found:",
      );
      await t.plan("ast_grep", { pattern: 'print("unclosed', path: "python/inventory/stock.py" });
      await t.full(
        "ast_edit",
        { pattern: "fmt.Println($$$ARGS)", rewrite: "log.Println($$$ARGS)", path: "go", language: "go" },
        { choices: [1] },
      );
      t.out(
        "Nothing was written yet; resolve accepts it (every file checked against what was staged) or discards it:",
      );
      await t.full("resolve", { edit_id: "edit_1", action: "discard" }, { choices: [1] });
    },
  },
  {
    title: "debug — a real debugger (debugpy here), one call per step with where it stopped",
    async run(t) {
      await t.full("debug", { operation: "adapters" }, { choices: [2] });
      await t.full("debug", {
        operation: "breakpoints",
        file: "python/inventory/stock.py",
        lines: [32],
      });
      await t.full("debug", { operation: "launch", program: "python/inventory/stock.py" });
      await t.full("debug", { operation: "step_in" });
      await t.full("debug", { operation: "evaluate", expression: "item.price_cents * count" });
      await t.full("debug", {
        operation: "breakpoints",
        file: "python/inventory/stock.py",
        lines: [],
      });
      await t.full("debug", { operation: "continue" });
      await t.full("debug", { operation: "output" });
      await t.full("debug", { operation: "terminate" });
    },
  },
  {
    title: "eval — persistent Python and JavaScript kernels (Jupyter), tool() inside a cell",
    async run(t) {
      await t.full(
        "eval",
        {
          code: "import pandas as pd\nstock = pd.DataFrame({'sku': ['A1', 'B2'], 'count': [3, 5]})\nstock",
          description: "load a small stock table with pandas",
        },
        { choices: [2] },
      );
      await t.full("eval", {
        code: "stock['count'].sum()",
        description: "count every item in the table",
      });
      await t.full("eval", {
        code: "import matplotlib.pyplot as plt\nstock.plot.bar(x='sku', y='count')\nplt.show()",
        description: "plot the counts as a bar chart",
      });
      await t.full("eval", {
        code: "r = tool('read', {'path': 'go/go.mod'})\nprint(r['total_lines'], 'lines read through the run')",
        description: "read a file through the run's tools",
      });
      await t.full("eval", {
        code: "const items = [3, 5]; items.reduce((a, b) => a + b)",
        description: "sum the counts again in JavaScript",
        language: "javascript",
      });
    },
  },
  {
    title: "notebook / notebook_edit / notebook_run — a notebook's cells read, fixed and run in place",
    async run(t) {
      const path = "python/stock-report.ipynb";
      await t.plan("notebook", { path });
      await t.full("notebook_run", { path }, { choices: [2] });
      await t.full(
        "notebook_edit",
        { path, action: "replace", index: 3, source: 'stock.remove("B2", 2)  # the chairs sold this week' },
        { choices: [1] },
      );
      await t.full("notebook_run", { path, cells: "3-" });
    },
  },
  {
    title: "vibe_* — background workers: spawn returns at once, wait collects the result",
    async run(t) {
      await t.plan("vibe_spawn", { brief: "count the functions", label: "counter" });
      await t.plan("vibe_wait", { worker_id: "w1", timeout_seconds: 30 });
      await t.plan("vibe_list", {});
    },
  },
];
