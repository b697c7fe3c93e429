/**
 * SCIM errors (RFC 7644 3.12): a body with the Error schema, the HTTP status
 * as a string, and for 400s a scimType naming what kind of request was wrong.
 */
export const SCIM_ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

export type ScimType =
  | "invalidFilter"
  | "tooMany"
  | "uniqueness"
  | "mutability"
  | "invalidSyntax"
  | "invalidPath"
  | "noTarget"
  | "invalidValue"
  | "invalidVers"
  | "sensitive";

export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
    this.name = "ScimError";
  }
}

export const badRequest = (scimType: ScimType, detail: string) => new ScimError(400, detail, scimType);

export function scimErrorBody(error: ScimError): Record<string, unknown> {
  return { schemas: [SCIM_ERROR_SCHEMA], status: String(error.status), ...(error.scimType ? { scimType: error.scimType } : {}), detail: error.detail };
}
