import { ToolError } from "../errors.js";
import {
  type LspAction,
  type LspAnswer,
  type LspArgs,
  lspInput,
  lspOutput,
  type NavigationAction,
} from "../lsp/schema.js";
import { quoteReport, RequestTimeout, reportedBefore, ServerRefusal } from "../lsp/server/request-errors.js";
import type { LanguageService } from "../lsp/service.js";
import { defineTool, type ToolContext } from "../registry.js";

export const lspTool = defineTool({
  name: "lsp",
  // Its language servers are runbound's helpers; gopls and rust-analyzer fetch modules and crates (the run's policy).
  effects: { files: "read", starts: "helpers", kills: false, network: true, idempotent: true },
  title: "Ask the language server",
  tier: "read",
  needs: ["lsp"],
  parallelSafe: true,
  description: [
    "Ask the project's language server (pyright, TypeScript, gopls, clangd, rust-analyzer, dart).",
    "Address a symbol by `line` (1-based) and `symbol` (its name as written on that line) — never a column; `line` may be left out when the name occurs once in the file's code.",
    "Actions: definition, type_definition, implementation, references (at most 50), hover, code_actions: file + line + symbol;",
    "call_hierarchy (direction incoming: its callers, or outgoing: what it calls; call sites are lines of the caller) and type_hierarchy (supertypes or subtypes): file + line + symbol, `depth` 1-3 levels;",
    'symbols: `file` for its outline, or `query` to search the workspace (add `file` to pick which server searches); diagnostics: `file`, or "*" for the project-wide check;',
    "status: which servers run and why others cannot; reload: restart the server of `file` (or all).",
    "Diagnostics say whether they are fresh; stale ones are never a clean bill. A list that may miss items (capped, a server still indexing, stale diagnostics) ends with `Incomplete:` and why.",
  ].join(" "),
  input: lspInput,
  output: lspOutput,
  async run(args, ctx) {
    try {
      return await runAction(args, ctx.use("lsp"), ctx);
    } catch (error) {
      if (error instanceof ServerRefusal) {
        throw new ToolError(
          `${error.server} answered ${error.method} with an error: ${quoteReport(error.message.slice(0, 500), ctx.use("lsp").workdir, false)}. That is the server's own answer, not a fault of the arguments.${reportedBefore(error, ctx.use("lsp").workdir)} Most often its project does not load here: \`lsp diagnostics\` with file "*" shows the build's errors, \`lsp status\` what the server last reported.`,
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

type Handler = (args: LspArgs, lsp: LanguageService, ctx: ToolContext) => Promise<LspAnswer> | LspAnswer;

const navigate: Handler = async (args, lsp, ctx) => {
  // code_actions are about one line's diagnostics: the line is the point. Elsewhere a name that occurs once in the
  // file's code is enough.
  const needsLine = args.action === "code_actions";
  const missing = (needsLine ? (["file", "line", "symbol"] as const) : (["file", "symbol"] as const)).filter(
    (k) => args[k] === undefined || args[k] === "",
  );
  if (missing.length) {
    throw new ToolError(
      needsLine
        ? `code_actions needs \`file\`, \`line\` and \`symbol\` (the name as written on that line — a column is never guessed); missing: ${missing.map((m) => `\`${m}\``).join(", ")}.`
        : `${args.action} needs \`file\` and \`symbol\` (the name as written; with \`line\` when it occurs more than once in the file — a column is never guessed); missing: ${missing.map((m) => `\`${m}\``).join(", ")}.`,
    );
  }
  await lsp.settleTrust(args.file, ctx);
  return lsp.navigate(args.action as NavigationAction, args.file!, args.line, args.symbol!, ctx.signal, {
    direction: args.direction,
    depth: args.depth,
  });
};

const DIRECTIONS = {
  call_hierarchy: ["incoming", "outgoing"],
  type_hierarchy: ["supertypes", "subtypes"],
} as const;

/** A hierarchy's direction must be its own; direction and depth mean nothing to the other actions. */
const hierarchy =
  (action: keyof typeof DIRECTIONS): Handler =>
  (args, lsp, ctx) => {
    const allowed: readonly string[] = DIRECTIONS[action];
    if (args.direction !== undefined && !allowed.includes(args.direction))
      throw new ToolError(
        `\`direction\` "${args.direction}" is not one of ${action}'s: ${allowed.map((d) => `"${d}"`).join(" or ")}.`,
      );
    return navigate(args, lsp, ctx);
  };

const plain =
  (handler: Handler): Handler =>
  (args, lsp, ctx) => {
    const extra = (["direction", "depth"] as const).filter((k) => args[k] !== undefined);
    if (extra.length)
      throw new ToolError(
        `${extra.map((k) => `\`${k}\``).join(" and ")} ${extra.length === 1 ? "is" : "are"} for call_hierarchy and type_hierarchy only; ${args.action} does not take ${extra.length === 1 ? "it" : "them"}.`,
      );
    return handler(args, lsp, ctx);
  };

/** One handler per action: an action without one is a type error, never a fall-through to another. */
const HANDLERS: Record<LspAction, Handler> = {
  definition: plain(navigate),
  type_definition: plain(navigate),
  implementation: plain(navigate),
  references: plain(navigate),
  hover: plain(navigate),
  code_actions: plain(navigate),
  call_hierarchy: hierarchy("call_hierarchy"),
  type_hierarchy: hierarchy("type_hierarchy"),
  symbols: plain(async (args, lsp, ctx) => {
    if (args.file === undefined && args.query === undefined)
      throw new ToolError("symbols needs `file` (its outline) or `query` (a workspace search).");
    // Without a file, only running servers search: nothing starts.
    if (args.file !== undefined) await lsp.settleTrust(args.file, ctx);
    return lsp.symbols({ file: args.file, query: args.query }, ctx.signal);
  }),
  diagnostics: plain(async (args, lsp, ctx) => {
    if (!args.file)
      throw new ToolError(
        'diagnostics needs `file`: a file of the project, or "*" for the project-wide check.',
      );
    await lsp.settleTrust(args.file === "*" ? undefined : args.file, ctx);
    return args.file === "*"
      ? lsp.projectDiagnostics(ctx.signal, (p) => ctx.progress(p))
      : lsp.fileDiagnostics(args.file, ctx.signal);
  }),
  status: plain((_args, lsp) => lsp.status()),
  reload: plain(async (args, lsp, ctx) => {
    // Without a file, the running servers restart as they run: nothing new starts.
    if (args.file !== undefined) await lsp.settleTrust(args.file, ctx);
    return lsp.reload(args.file);
  }),
};

async function runAction(args: LspArgs, lsp: LanguageService, ctx: ToolContext): Promise<LspAnswer> {
  // Each handler checks its arguments before anything is asked of a person (trust, with trust "ask").
  return HANDLERS[args.action](args, lsp, ctx);
}
