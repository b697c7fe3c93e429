import { describe, expect, it } from "vitest";
import { fieldMessage, formLevelProblems, type FormState } from "./form-state";

describe("fieldMessage", () => {
  it("shows a sentence as it is, apart from the label", () => {
    expect(fieldMessage("Number of GPUs", "Enter a whole number, 1 or more.")).toBe("Enter a whole number, 1 or more.");
  });

  it("gives a predicate the field's label as subject", () => {
    expect(fieldMessage("Slug", "must be at most 63 characters")).toBe("Slug must be at most 63 characters");
  });
});

describe("formLevelProblems", () => {
  const failed: FormState = {
    status: "error",
    message: "Check the highlighted fields.",
    fieldErrors: { gpuCount: ["Enter a whole number, 1 or more."], _form: ["Ask for at least one resource."], tenant: ["is not a tenant slug"] },
  };

  it("lists the message, the whole input's problems and those of fields not shown, never a shown field's", () => {
    expect(formLevelProblems(failed, ["gpuCount"])).toEqual(["Check the highlighted fields.", "Ask for at least one resource.", "tenant is not a tenant slug"]);
  });

  it("is empty unless the submission failed", () => {
    expect(formLevelProblems({ ...failed, status: "ok" }, [])).toEqual([]);
    expect(formLevelProblems({ status: "idle" }, [])).toEqual([]);
  });
});
