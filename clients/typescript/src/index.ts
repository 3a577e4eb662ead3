// The hand-written part of @trellis/client: a thin layer over openapi-fetch and the types that
// openapi-typescript generates into ./schema.ts (`scripts/clients generate`; never edit that file).
// Every typed call goes through `trellis.api` (openapi-fetch: `api.GET("/v0/spaces", ...)`); the
// modules beside this file add what a person needs help with, one concern each: the client and its
// two headers (client.ts), errors as one typed `TrellisError` (errors.ts), sign-up with its PIN
// (auth.ts), paging, uploads, module routes, streamed exports, resumable (tus) uploads and live
// updates.
//
// This file only re-exports, name by name: the package's interface is exactly this list, and what
// the modules share among themselves (e.g. `Outcome`) stays inside.
export type { components, paths } from "./schema.js";

export { type Api, createTrellis, ok, type RequestBody, type Trellis, type TrellisOptions } from "./client.js";
export { type ErrorDetail, TrellisError } from "./errors.js";
export { login, signUp, type SignUpDetails } from "./auth.js";
export { paginate } from "./paging.js";
export {
  type AttachmentFile,
  type AttachmentQuery,
  type AttachmentUpload,
  attachUploads,
  uploadAsset,
  uploadAttachments,
  uploadAvatar,
  type UploadFile,
  type UseUpload,
} from "./uploads.js";
export { callModule } from "./modules.js";
export {
  type ExportFormat,
  exportForms,
  exportItems,
  type ExportOptions,
  type FormInstance,
  type FormsExportQuery,
  type FormState,
  type ItemsExportQuery,
  type WorkflowItem,
} from "./exports.js";
export {
  appendUpload,
  createUpload,
  type FinishedUpload,
  type NewUpload,
  resumableUpload,
  type ResumableUploadOptions,
  terminateUpload,
  type UploadCreated,
  type UploadStatus,
  uploadStatus,
} from "./resumable.js";
export {
  eventTicket,
  type EventSourceLike,
  type LiveEvent,
  type LiveEventData,
  type LiveEventName,
  type LiveStream,
  openEvents,
  type OpenEventsOptions,
} from "./live.js";
