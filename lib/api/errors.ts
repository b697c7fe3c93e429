import { AppError, ERROR_MESSAGES, type ErrorCode } from "@/lib/errors";

/** HTTP status of each expected error code; anything unexpected is a 500 with a reference. */
export const STATUS_OF: Record<ErrorCode | "rate_limited" | "internal", number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  internal: 500,
};

export type ApiErrorBody = { error: { code: string; message: string; fields?: Record<string, string[]>; ref?: string } };

export function errorResponse(code: keyof typeof STATUS_OF, message?: string, extra: { fields?: Record<string, string[]>; ref?: string; headers?: HeadersInit } = {}): Response {
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
