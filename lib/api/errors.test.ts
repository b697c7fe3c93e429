import { describe, expect, it, vi } from "vitest";
import { AppError, ERROR_MESSAGES, type ErrorCode } from "@/lib/errors";
import { API_ERROR_CODES, errorToResponse, STATUS_OF } from "./errors";

describe("errorToResponse, the one way an error becomes a JSON answer", () => {
  it.each(Object.keys(ERROR_MESSAGES) as ErrorCode[])("answers an AppError %s with its status and the envelope", async (code) => {
    const response = errorToResponse(new AppError(code, "why", code === "validation" ? { name: ["Fill in this field."] } : undefined), "test");
    expect(response.status).toBe(STATUS_OF[code]);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toEqual({ error: { code, message: "why", ...(code === "validation" ? { fields: { name: ["Fill in this field."] } } : {}) } });
  });

  it("maps a conflict to 409, not 400", () => {
    expect(errorToResponse(new AppError("conflict"), "test").status).toBe(409);
  });

  it("answers anything else 500 with a reference and none of the error's own text", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const response = errorToResponse(new Error("password authentication failed for user allot"), "test");
    logged.mockRestore();
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { code: string; message: string; ref: string } };
    expect(body.error.code).toBe("internal");
    expect(body.error.message).toBe(`Something went wrong. Reference ${body.error.ref}.`);
    expect(JSON.stringify(body)).not.toContain("password");
  });

  it("has a distinct status for every code it documents", () => {
    expect(new Set(API_ERROR_CODES.map((c) => STATUS_OF[c])).size).toBe(API_ERROR_CODES.length);
  });
});
