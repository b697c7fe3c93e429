import { describe, expect, it } from "vitest";
import { formLevelProblems, type FormState } from "./form-state";

describe("formLevelProblems", () => {
  const failed: FormState = {
    status: "error",
    message: "Some fields need attention.",
    fieldErrors: { gpuCount: ["Enter a whole number, 1 or more."], _form: ["Ask for at least one resource."], tenant: ["Enter a tenant slug."] },
  };

  it("lists the message, the whole input's problems and those of fields not shown, never a shown field's", () => {
    expect(formLevelProblems(failed, ["gpuCount"])).toEqual(["Some fields need attention.", "Ask for at least one resource.", "tenant: Enter a tenant slug."]);
  });

  it("puts a problem of the whole input at the form, not on the first field", () => {
    expect(formLevelProblems(failed, ["gpuCount", "tenant"])).toEqual(["Some fields need attention.", "Ask for at least one resource."]);
  });

  it("is empty unless the submission failed", () => {
    expect(formLevelProblems({ ...failed, status: "ok" }, [])).toEqual([]);
    expect(formLevelProblems({ status: "idle" }, [])).toEqual([]);
  });
});
