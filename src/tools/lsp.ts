import { z } from "zod";
import { ToolError } from "../errors.js";
import { visibleLine } from "../files/visible.js";
import { RequestTimeout, ServerRefusal } from "../lsp/client.js";
import { diagnosticRowSchema as diagnostic } from "../lsp/schema.js";
import type { Lsp, NavigationAction } from "../lsp/service.js";
import { defineTool, type ToolContext } from "../registry.js";

const ACTIONS = [
  "diagnostics",
  "definition",
  "type_definition",
  "implementation",
  "references",
  "hover",
  "symbols",
  "code_actions",
  "status",
  "reload",
] as const;

const NAVIGATION: ReadonlySet<string> = new Set<NavigationAction>([
  "definition",
  "type_definition",
  "implementation",
  "references",
  "hover",
  "code_actions",
]);

const place = z.object({
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  snippet: z.string(),
});

interface LspArgs {
  action: (typeof ACTIONS)[number];
  file?: string | undefined;
  line?: number | undefined;
  symbol?: string | undefined;
  query?: string | undefined;
}

export const lspTool = defineTool({
  name: "lsp",
  title: "Ask the language server",
  tier: "read",
  needs: ["lsp"],
  parallelSafe: true,
  description: [
    "Ask the project's language server (pyright, TypeScript, gopls, clangd, rust-analyzer, dart).",
    "Address a symbol by `line` (1-based) and `symbol` (its name as written on that line) — never a column.",
    "Actions: definition, type_definition, implementation, references (at most 50), hover, code_actions: file + line + symbol;",
    'symbols: `file` for its outline, or `query` to search the workspace (add `file` to pick which server searches); diagnostics: `file`, or "*" for the project-wide check;',
    "status: which servers run and why others cannot; reload: restart the server of `file` (or all).",
    "Diagnostics say whether they are fresh; stale ones are never a clean bill.",
  ].join(" "),
  input: {
    action: z.enum(ACTIONS),
    file: z
      .string()
      .optional()
      .describe('File relative to the workdir; for diagnostics, "*" means the whole project.'),
    line: z.number().int().min(1).optional().describe("1-based line the symbol is on."),
    symbol: z
      .string()
      .optional()
      .describe('The symbol as written on that line, e.g. "load" or "cfg.load" (the last name is used).'),
    query: z.string().optional().describe("For symbols: a workspace search."),
  },
  output: {
    action: z.string(),
    server: z.string().optional(),
    target: z
      .object({
        path: z.string(),
        line: z.number().int(),
        column: z.number().int(),
        identifier: z.string(),
        occurrence: z.number().int(),
        of: z.number().int(),
        note: z.string().optional(),
      })
      .optional(),
    locations: z.array(place).optional(),
    total: z.number().int().optional(),
    hover: z.string().optional(),
    symbols: z
      .array(
        z.object({
          name: z.string(),
          kind: z.string(),
          path: z.string(),
          line: z.number().int(),
          container: z.string().optional(),
        }),
      )
      .optional(),
    searched: z
      .array(z.string())
      .optional()
      .describe("For a workspace symbol search: the servers that searched (id @ root)."),
    not_searched: z
      .array(z.string())
      .optional()
      .describe("For a workspace symbol search: servers that did not search, and why."),
    diagnostics: z.array(diagnostic).optional(),
    freshness: z.enum(["fresh", "stale", "not ready"]).optional(),
    actions: z
      .array(z.object({ title: z.string(), kind: z.string().optional(), preferred: z.boolean().optional() }))
      .optional(),
  },
  async run(args, ctx) {
    try {
      return await runAction(args, ctx.use("lsp"), ctx);
    } catch (error) {
      if (error instanceof ServerRefusal) {
        throw new ToolError(
          `${error.server} answered ${error.method} with an error: ${visibleLine(error.message.slice(0, 500))}. That is the server's own answer, not a fault of the arguments: most often its project does not load here (\`lsp diagnostics\` with file "*" shows the build's errors, \`lsp status\` the server's last output).`,
        );
      }
      if (error instanceof RequestTimeout) {
        throw new ToolError(
          `${error.message}; the request was cancelled on the server. After 3 timeouts in a row the server is restarted. Try again, or \`lsp reload\` with this file.`,
        );
      }
      throw error;
    }
  },
});

async function runAction(args: LspArgs, lsp: Lsp, ctx: ToolContext) {
  if (args.action !== "status") await lsp.settleTrust(args.file === "*" ? undefined : args.file, ctx);
  if (NAVIGATION.has(args.action)) {
    const missing = (["file", "line", "symbol"] as const).filter(
      (k) => args[k] === undefined || args[k] === "",
    );
    if (missing.length) {
      throw new ToolError(
        `${args.action} needs \`file\`, \`line\` and \`symbol\` (the name as written on that line — a column is never guessed); missing: ${missing.map((m) => `\`${m}\``).join(", ")}.`,
      );
    }
    const action = args.action as NavigationAction;
    return lsp.navigate(action, args.file!, args.line!, args.symbol!, ctx.signal);
  }
  switch (args.action) {
    case "symbols":
      if (args.file === undefined && args.query === undefined) {
        throw new ToolError("symbols needs `file` (its outline) or `query` (a workspace search).");
      }
      return lsp.symbols({ file: args.file, query: args.query }, ctx.signal);
    case "diagnostics":
      if (!args.file)
        throw new ToolError(
          'diagnostics needs `file`: a file of the project, or "*" for the project-wide check.',
        );
      return args.file === "*"
        ? lsp.projectDiagnostics(ctx.signal, (p) => ctx.progress(p))
        : lsp.fileDiagnostics(args.file, ctx.signal);
    case "status":
      return lsp.status();
    default:
      return lsp.reload(args.file);
  }
}
