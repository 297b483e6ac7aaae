/** What a run needs to wire its language servers, in one module a run loads when it does (run-modules.ts). */
export { afterWriteDiagnosticsSchema } from "./schema.js";
export { LspSupervisor } from "./server/supervisor.js";
export { LanguageService } from "./service.js";
export { WorkspaceTrust } from "./trust/trust.js";
