/**
 * The zod shapes of the lsp resource's inputs and answers: the tools list them to clients, the resource's types are
 * inferred from them — one definition each.
 */
import { z } from "zod";

export const diagnosticRowSchema = z.object({
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  severity: z.string(),
  code: z.string().optional(),
  source: z.string().optional(),
  message: z.string(),
});
export type DiagnosticRow = z.infer<typeof diagnosticRowSchema>;

/** What diagnostics on write add to a writing tool's structured result (key `diagnostics`). */
export const afterWriteDiagnosticsSchema = z.object({
  files: z.array(
    z.object({
      path: z.string(),
      server: z.string().optional(),
      freshness: z.enum(["fresh", "stale", "not ready", "unavailable"]),
      new: z.array(diagnosticRowSchema),
      resolved: z.number().int(),
    }),
  ),
});
export type AfterWriteDiagnostics = z.infer<typeof afterWriteDiagnosticsSchema>;

export const LSP_ACTIONS = [
  "diagnostics",
  "definition",
  "type_definition",
  "implementation",
  "references",
  "hover",
  "symbols",
  "code_actions",
  "call_hierarchy",
  "type_hierarchy",
  "status",
  "reload",
] as const;
export type LspAction = (typeof LSP_ACTIONS)[number];

/** The actions that address a symbol by file, line and symbol. */
export const NAVIGATION_ACTIONS = [
  "definition",
  "type_definition",
  "implementation",
  "references",
  "hover",
  "code_actions",
  "call_hierarchy",
  "type_hierarchy",
] as const satisfies readonly LspAction[];
export type NavigationAction = (typeof NAVIGATION_ACTIONS)[number];

export const HIERARCHY_DIRECTIONS = ["incoming", "outgoing", "supertypes", "subtypes"] as const;
export type HierarchyDirection = (typeof HIERARCHY_DIRECTIONS)[number];

/** How lsp and lsp_rename address a symbol: a line and the name as written on it — never a column. */
export const locator = {
  line: z
    .number()
    .int()
    .min(1)
    .describe(
      "1-based line the symbol is on. May be left out when the name occurs once in the file's code (not for code_actions).",
    ),
  symbol: z
    .string()
    .describe('The symbol as written on that line, e.g. "load" or "cfg.load" (the last name is used).'),
};

export const lspInput = {
  action: z.enum(LSP_ACTIONS),
  file: z
    .string()
    .optional()
    .describe('File relative to the workdir; for diagnostics, "*" means the whole project.'),
  line: locator.line.optional(),
  symbol: locator.symbol.optional(),
  query: z.string().optional().describe("For symbols: a workspace search."),
  direction: z
    .enum(HIERARCHY_DIRECTIONS)
    .optional()
    .describe(
      "call_hierarchy: incoming (its callers, the default) or outgoing (what it calls); type_hierarchy: supertypes (the default) or subtypes.",
    ),
  depth: z
    .number()
    .int()
    .min(1)
    .max(3)
    .optional()
    .describe("call_hierarchy, type_hierarchy: how many levels to follow, 1-3 (default 1)."),
};
export type LspArgs = z.infer<z.ZodObject<typeof lspInput>>;

export const placeSchema = z.object({
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  end: z
    .object({ line: z.number().int(), column: z.number().int() })
    .describe("Where the location's range ends (1-based line and column, exclusive)."),
  snippet: z.string(),
});
export type Place = z.infer<typeof placeSchema>;

export const targetSchema = z.object({
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  identifier: z.string(),
  occurrence: z.number().int(),
  of: z.number().int(),
  note: z.string().optional(),
});
export type LspTarget = z.infer<typeof targetSchema>;

export const symbolRowSchema = z.object({
  name: z.string(),
  kind: z.string(),
  path: z.string(),
  line: z.number().int(),
  column: z.number().int().optional().describe("1-based, where the server gave the symbol's range."),
  end: z
    .object({ line: z.number().int(), column: z.number().int() })
    .optional()
    .describe(
      "Where the symbol's range ends (1-based line and column, exclusive), where the server gave it.",
    ),
  container: z.string().optional(),
});
export type SymbolRow = z.infer<typeof symbolRowSchema>;

export const hierarchyRowSchema = z.object({
  depth: z
    .number()
    .int()
    .describe("0 for the item at the target, 1 for its callers (or callees, or types), ..."),
  name: z.string(),
  kind: z.string(),
  path: z.string(),
  line: z.number().int(),
  parent: z.number().int().optional().describe("Index of the row this one is a caller, callee or type of."),
  sites: z.array(z.number().int()).optional().describe("Lines of the calls, in the caller's file."),
  not_followed: z
    .string()
    .optional()
    .describe("Why this item's own callers, callees or types are not listed."),
});
export type HierarchyRow = z.infer<typeof hierarchyRowSchema>;

export const lspOutput = {
  action: z.string(),
  server: z.string().optional(),
  target: targetSchema.optional(),
  locations: z.array(placeSchema).optional(),
  total: z.number().int().optional(),
  hover: z.string().optional(),
  symbols: z.array(symbolRowSchema).optional(),
  hierarchy: z
    .array(hierarchyRowSchema)
    .optional()
    .describe("For call_hierarchy and type_hierarchy: the tree in preorder."),
  searched: z
    .array(z.string())
    .optional()
    .describe("For a workspace symbol search: the servers that searched (id @ root)."),
  not_searched: z
    .array(z.string())
    .optional()
    .describe("For a workspace symbol search: servers that did not search, and why."),
  diagnostics: z.array(diagnosticRowSchema).optional(),
  freshness: z.enum(["fresh", "stale", "not ready"]).optional(),
  complete: z
    .boolean()
    .optional()
    .describe(
      "For a list (locations, symbols, a hierarchy, diagnostics): false when it may miss items — capped, the server still indexing, diagnostics not fresh.",
    ),
  incomplete_because: z.array(z.string()).optional().describe("Why the list is not complete."),
  actions: z
    .array(z.object({ title: z.string(), kind: z.string().optional(), preferred: z.boolean().optional() }))
    .optional(),
};

/** What every lsp action answers: text for the model, the structured result for the harness. */
export interface LspAnswer {
  text: string;
  structured: z.infer<z.ZodObject<typeof lspOutput>>;
}

export const renameOutput = {
  old_name: z.string().optional(),
  new_name: z.string().optional(),
  moved: z
    .object({ from: z.string(), to: z.string() })
    .optional()
    .describe("For a file move (`new_path`): where the file was and is."),
  servers: z
    .array(z.object({ server: z.string(), edits: z.number().int() }))
    .optional()
    .describe(
      "For a file move: each server asked, and how many edits it proposed (0: none, or it offers none).",
    ),
  files: z.array(z.object({ path: z.string(), edits: z.number().int() })),
  created: z.array(z.string()),
  renamed: z.array(z.object({ from: z.string(), to: z.string() })),
  deleted: z.array(z.string()),
};

export interface RenameAnswer {
  text: string;
  structured: z.infer<z.ZodObject<typeof renameOutput>>;
  /** Every path touched, for the after-write hooks. */
  written: string[];
}
