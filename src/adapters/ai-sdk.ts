/**
 * `runbound/ai-sdk`: a link's tools as an AI SDK ToolSet (`aiSdkTools`; the SDK's abortSignal cancels a call) and a
 * worker backend on an AI SDK model (`modelBackend`). The AI SDK (`ai` 5, 6 or 7) is loaded when they are used.
 */
export {
  type AiSdkLanguageModel,
  aiSdkTools,
  type ModelBackendOptions,
  modelBackend,
} from "../vibe/model.js";
