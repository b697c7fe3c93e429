import { AppError, ERROR_MESSAGES, reportUnexpectedError, type ErrorCode } from "@/lib/errors";

/**
 * HTTP status of each error code of the API's envelope; anything unexpected
 * is a 500 with a reference. The OpenAPI document's Error schema lists these
 * codes, so a new one is documented by adding it here.
 */
export const STATUS_OF: Record<ErrorCode | "method_not_allowed" | "rate_limited" | "internal", number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  rate_limited: 429,
  internal: 500,
};

export type ApiErrorCode = keyof typeof STATUS_OF;
export const API_ERROR_CODES = Object.keys(STATUS_OF) as ApiErrorCode[];

export type ApiErrorBody = { error: { code: ApiErrorCode; message: string; fields?: Record<string, string[]>; ref?: string } };

export function errorResponse(code: ApiErrorCode, message?: string, extra: { fields?: Record<string, string[]>; ref?: string; headers?: HeadersInit } = {}): Response {
  const body: ApiErrorBody = {
    error: {
      code,
      message: message ?? (code in ERROR_MESSAGES ? ERROR_MESSAGES[code as ErrorCode] : "Something went wrong."),
      ...(extra.fields ? { fields: extra.fields } : {}),
      ...(extra.ref ? { ref: extra.ref } : {}),
    },
  };
  return Response.json(body, { status: STATUS_OF[code], headers: { "Cache-Control": "no-store", ...extra.headers } });
}

export function appErrorResponse(error: AppError): Response {
  return errorResponse(error.code, error.message, { fields: error.fields });
}

/**
 * The one way a thrown error becomes a JSON answer, for the REST API and the
 * portal's JSON routes alike: an AppError by its code's status, anything else
 * logged and answered 500 with only its reference id.
 */
export function errorToResponse(error: unknown, where: string): Response {
  if (error instanceof AppError) return appErrorResponse(error);
  const ref = reportUnexpectedError(error, where);
  return errorResponse("internal", `Something went wrong. Reference ${ref}.`, { ref });
}
