/** What a form shows after submitting: a message and problems by field name. Shared by server and client. */
export type FormState = {
  status: "idle" | "ok" | "error";
  message?: string;
  fieldErrors?: Record<string, string[]>;
  /** Something shown once and never again (a new token, an invitation link). */
  reveal?: { label: string; value: string; note?: string; /** A ready command using the value, shown with it once. */ example?: string };
};

export const initialFormState: FormState = { status: "idle" };

/**
 * A field's problem as a sentence, shown under the field apart from its label.
 * Messages are written as sentences that say what to enter ("Enter a whole
 * number, 1 or more."); schemas not yet rewritten give the predicate of one
 * whose subject is the field ("must be at most 63 characters"), which then gets
 * the field's label as its subject.
 */
export function fieldMessage(label: string, message: string): string {
  return /^[a-z]/.test(message) ? `${label} ${message}` : message;
}

/**
 * Problems of the whole form, shown at its top: the message, problems of the
 * input as a whole ("_form"), and those of fields the form does not show (a
 * bad id in the address), each named by its field.
 */
export function formLevelProblems(state: FormState, shownFields: string[]): string[] {
  if (state.status !== "error") return [];
  const others = Object.entries(state.fieldErrors ?? {}).filter(([name]) => !shownFields.includes(name));
  const lines = others.flatMap(([name, messages]) => messages.map((m) => (name === "_form" ? fieldMessage("The form", m) : fieldMessage(name, m))));
  return state.message ? [state.message, ...lines] : lines;
}
