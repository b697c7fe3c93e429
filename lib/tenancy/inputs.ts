import { z } from "zod";
import { instantInput } from "@/lib/input/instants";
import { wholeNumber } from "@/lib/input/numbers";
import { DATE_EXAMPLE, EMAIL_ADDRESS, FILL_IN, VALID_ID, atLeastChars, atMostChars, oneOf } from "@/lib/input/messages";

/** Input pieces shared by the tenancy commands, so forms and the API validate alike. */

export const emailInput = z
  .string({ message: FILL_IN })
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: EMAIL_ADDRESS }))
  // The trim before the check hides the format from the generated OpenAPI schema; state it.
  .meta({ type: "string", format: "email" });

export const tenantRoleInput = z.enum(["tenant_admin", "member", "viewer"], { message: oneOf(["tenant_admin", "member", "viewer"]) });
export const projectRoleInput = z.enum(["member", "viewer"], { message: oneOf(["member", "viewer"]) });
/** What a tenant member or service account may be granted on a project; "meter" is for service accounts only (checked by the command). */
export const projectGrantRoleInput = z.enum(["member", "viewer", "meter"], { message: oneOf(["member", "viewer", "meter"]) });

/** A version number read with the row, to detect a concurrent change (optimistic locking). */
export const versionInput = wholeNumber("Version", { min: 1 });

/** An instant in the future given as an ISO date ("2027-01-31") or date-time. */
export const futureInstant = instantInput(DATE_EXAMPLE);

export const uuidInput = z.uuid({ message: VALID_ID });

export const nameInput = z.string({ message: FILL_IN }).trim().min(2, atLeastChars(2)).max(80, atMostChars(80));
export const descriptionInput = z.string().trim().max(500, atMostChars(500)).default("");

/** Form checkboxes send "on"; the API sends booleans. */
export const checkbox = z.union([z.boolean(), z.literal("on").transform(() => true), z.literal("").transform(() => false)]).default(false);
