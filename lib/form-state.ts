/** What a form shows after submitting: a message and problems by field name. Shared by server and client. */
export type FormState = {
  status: "idle" | "ok" | "error";
  message?: string;
  fieldErrors?: Record<string, string[]>;
  /** Something shown once and never again (a new token, an invitation link). */
  reveal?: { label: string; value: string; note?: string; /** A ready command using the value, shown with it once. */ example?: string };
};

export const initialFormState: FormState = { status: "idle" };
