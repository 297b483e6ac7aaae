/** runbound: built-in agent tools bound to the live resources of one run, reached only over a private link. */

export type { ToolEffects } from "./annotations.js";
export type {
  ApprovalDecision,
  ApprovalMode,
  ApprovalRequest,
  Approver,
  ApproverOption,
} from "./approvals.js";
export type { AstOptions } from "./ast/engine.js";
export type { AdapterConfig } from "./dap/custom-adapters.js";
export type { DebugOptions } from "./dap/supervisor.js";
export { ToolError } from "./errors.js";
export { type HostLimits, hostUsage, setHostLimits } from "./host-limits.js";
export type { KernelOptions } from "./kernels/options.js";
export type { Sandbox } from "./kernels/schema.js";
export { type LogEntry, type LogLevel, type RunLogger, stderrLogger } from "./log.js";
export type { ConfineMode, ConfinePolicy } from "./proc/confined.js";
export type { ContainerOptions } from "./proc/container.js";
export type { EnvPolicy } from "./proc/environment.js";
export type { TrackedProcess } from "./proc/tracker.js";
export { ProcessTracker } from "./proc/tracker.js";
export type {
  CardInput,
  CardKind,
  QuestionCard,
  QuestionOption,
  QuestionOutcome,
  QuestionPort,
  QuestionReply,
} from "./questions/card.js";
export { checkReply, parseReplyText, renderCard } from "./questions/card.js";
export { LineReader } from "./questions/lines.js";
export {
  type PendingQuestion,
  ProgrammaticQuestionPort,
  type WithdrawnReason,
} from "./questions/programmatic.js";
export { type TerminalPortOptions, TerminalQuestionPort } from "./questions/terminal.js";
export type {
  AfterWriteHook,
  AnyToolSpec,
  Caller,
  ContentBlock,
  Progress,
  ToolContext,
  ToolOutput,
  ToolSpec,
} from "./registry.js";
export { defineTool } from "./registry.js";
export type { ResourceKey, Resources } from "./resources.js";
export {
  type CallOptions,
  createRun,
  type LinkOptions,
  type QuestionsOption,
  Run,
  type RunOptions,
} from "./run.js";
export type { CallToolOptions, CallToolParams, RunLink } from "./run-link.js";
export { SURFACES, type Surface, TIERS, type Tier } from "./surfaces.js";
export type {
  AudioBlock,
  EmbeddedResourceBlock,
  ImageBlock,
  ListedTool,
  ResourceLinkBlock,
  TextBlock,
  ToolAnnotations,
  ToolResult,
} from "./tool-result.js";
export { VERSION } from "./version.js";
export { type CommandBackendOptions, commandBackend } from "./vibe/command.js";
export {
  type AiSdkLanguageModel,
  aiSdkTools,
  type ModelBackendOptions,
  modelBackend,
} from "./vibe/model.js";
export type { Attempt, AttemptContext, VibeOptions, WorkerBackend, WorkerTier } from "./vibe/pool.js";
