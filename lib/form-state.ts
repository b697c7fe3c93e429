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
 * Problems of the whole form, shown at its top: the message, problems of the
 * input as a whole ("_form"), and those of fields the form does not show (a
 * bad id in the address), each named by its field. A shown field's problem
 * is shown under it, as the sentence it is (lib/input/messages.ts), beside a
 * label that stays the field's name: no message is glued to a label.
 */
export function formLevelProblems(state: FormState, shownFields: string[]): string[] {
  if (state.status !== "error") return [];
  const others = Object.entries(state.fieldErrors ?? {}).filter(([name]) => !shownFields.includes(name));
  const lines = others.flatMap(([name, messages]) => messages.map((m) => (name === "_form" ? m : `${name}: ${m}`)));
  return state.message ? [state.message, ...lines] : lines;
}
