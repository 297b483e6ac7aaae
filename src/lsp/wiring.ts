/** What a run needs to wire its language servers, in one module a run loads when it does (run-modules.ts). */
export { afterWriteDiagnosticsSchema } from "./schema.js";
export { LanguageService } from "./service.js";
export { LspSupervisor } from "./supervisor.js";
export { WorkspaceTrust } from "./trust.js";
