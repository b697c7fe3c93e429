/** Kubernetes `Status` objects: how the API server reports every failure. */

/** The reason a real API server gives with each status code. */
export const REASONS: Readonly<Record<number, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  408: "Timeout",
  409: "Conflict",
  410: "Expired",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  502: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

export interface StatusDetails {
  name?: string;
  group?: string;
  /** The resource (plural), as the real server puts it. */
  kind?: string;
  uid?: string;
  retryAfterSeconds?: number;
  causes?: { reason?: string; message?: string; field?: string }[];
}

export interface KubeStatus {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Success" | "Failure";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export function failure(code: number, message: string, reason = REASONS[code] ?? "Unknown", details?: StatusDetails): KubeStatus {
  const status: KubeStatus = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
  if (details) status.details = details;
  return status;
}

export function success(details: StatusDetails): KubeStatus {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details, code: 200 };
}

/** Thrown inside the stand-in to answer with a Status. */
export class StatusError extends Error {
  readonly status: KubeStatus;
  constructor(code: number, message: string, reason?: string, details?: StatusDetails) {
    super(message);
    this.status = failure(code, message, reason, details);
  }
}

export const notFound = (plural: string, name: string, group = "") => new StatusError(404, `${plural}${group ? `.${group}` : ""} "${name}" not found`, "NotFound", { name, group, kind: plural });

export const noSuchResource = () => new StatusError(404, "the server could not find the requested resource", "NotFound", {});
