// Multipart uploads in one request: a form instance's attachments, a space's asset bytes, the
// avatar. A finished resumable upload (./resumable.ts) may stand in for a file where the route
// takes one.
import { ok, type Trellis } from "./client.js";
import type { paths } from "./schema.js";

/** A file for an upload; `name` is the part's file name. */
export interface UploadFile {
  file: Blob;
  name: string;
}

/** One file for a form instance's file field. */
export interface AttachmentFile extends UploadFile {
  fieldId: string;
}

/** The query of an attachment upload: the workflow view an instance is reached through, if any. */
export type AttachmentQuery = NonNullable<paths["/v0/media/forms/{formId}/attachments"]["post"]["parameters"]["query"]>;

/**
 * Uploads files to file fields of a form instance, as one multipart request (all or nothing):
 * `fieldIds` and `files` parts paired by position.
 */
export async function uploadAttachments(trellis: Trellis, formId: string, files: AttachmentFile[], query: AttachmentQuery = {}) {
  const form = new FormData();
  for (const { fieldId, file, name } of files) {
    form.append("fieldIds", fieldId);
    form.append("files", file, name);
  }
  return ok(
    trellis.api.POST("/v0/media/forms/{formId}/attachments", {
      params: { path: { formId }, query },
      body: form as never,
    }),
  );
}

/** A finished resumable upload (`resumableUpload`), used once in place of a file. */
export interface UseUpload {
  uploadId: string;
}

/** One finished resumable upload for a form instance's file field. */
export interface AttachmentUpload extends UseUpload {
  fieldId: string;
}

/**
 * Attaches finished resumable uploads to file fields of a form instance, as one JSON request
 * `{fieldIds, uploadIds}` (all or nothing, the same rules and answer as `uploadAttachments`); each
 * upload is used up. Files and uploads cannot share a request.
 */
export async function attachUploads(trellis: Trellis, formId: string, uploads: AttachmentUpload[], query: AttachmentQuery = {}) {
  return ok(
    trellis.api.POST("/v0/media/forms/{formId}/attachments", {
      params: { path: { formId }, query },
      body: { fieldIds: uploads.map((u) => u.fieldId), uploadIds: uploads.map((u) => u.uploadId) },
    }),
  );
}

/**
 * Uploads the bytes of an announced asset (`POST /v0/spaces/{spaceId}/assets` announced it): a file
 * (multipart), or a finished resumable upload's id (JSON `{uploadId}`; the asset takes over its bytes).
 */
export async function uploadAsset(trellis: Trellis, spaceId: string, assetId: string, upload: UploadFile | UseUpload) {
  const params = { path: { spaceId, assetId } };
  if ("uploadId" in upload) {
    return ok(trellis.api.POST("/v0/media/spaces/{spaceId}/assets/{assetId}", { params, body: { uploadId: upload.uploadId } }));
  }
  const form = new FormData();
  form.append("file", upload.file, upload.name);
  return ok(trellis.api.POST("/v0/media/spaces/{spaceId}/assets/{assetId}", { params, body: form as never }));
}

/** Sets the caller's avatar (PNG, JPEG, WebP or GIF). */
export async function uploadAvatar(trellis: Trellis, upload: UploadFile) {
  const form = new FormData();
  form.append("file", upload.file, upload.name);
  return ok(trellis.api.POST("/v0/media/users/me/avatar", { body: form as never }));
}
