/** The tools runbound ships. Each is registered for a run only when the resources it needs are wired. */
import type { AnyToolSpec } from "../registry.js";
import { applyPatchTool } from "./apply-patch.js";
import { askUserTool } from "./ask-user.js";
import { astEditTool } from "./ast-edit.js";
import { astGrepTool } from "./ast-grep.js";
import { debugTool } from "./debug.js";
import { editTool } from "./edit.js";
import { evalTool } from "./eval.js";
import { lspTool } from "./lsp.js";
import { lspRenameTool } from "./lsp-rename.js";
import { notebookTool } from "./notebook.js";
import { notebookEditTool } from "./notebook-edit.js";
import { notebookRunTool } from "./notebook-run.js";
import { readTool } from "./read.js";
import { resolveTool } from "./resolve.js";
import { vibeKillTool, vibeListTool, vibeSendTool, vibeSpawnTool, vibeWaitTool } from "./vibe.js";
import { writeTool } from "./write.js";

export const BUILTIN_TOOLS: readonly AnyToolSpec[] = [
  readTool,
  writeTool,
  editTool,
  applyPatchTool,
  askUserTool,
  lspTool,
  lspRenameTool,
  astGrepTool,
  astEditTool,
  resolveTool,
  debugTool,
  evalTool,
  notebookTool,
  notebookEditTool,
  notebookRunTool,
  vibeSpawnTool,
  vibeSendTool,
  vibeWaitTool,
  vibeKillTool,
  vibeListTool,
];
