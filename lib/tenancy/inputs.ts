import { z } from "zod";
import { instantInput } from "@/lib/input/instants";
import { wholeNumber } from "@/lib/input/numbers";

/** Input pieces shared by the tenancy commands, so forms and the API validate alike. */

export const emailInput = z
  .string({ message: "is required" })
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: "must be an email address" }))
  // The trim before the check hides the format from the generated OpenAPI schema; state it.
  .meta({ type: "string", format: "email" });

export const tenantRoleInput = z.enum(["tenant_admin", "member", "viewer"], { message: "must be tenant_admin, member or viewer" });
export const projectRoleInput = z.enum(["member", "viewer"], { message: "must be member or viewer" });
/** What a tenant member or service account may be granted on a project; "meter" is for service accounts only (checked by the command). */
export const projectGrantRoleInput = z.enum(["member", "viewer", "meter"], { message: "must be member, viewer or meter" });

/** A version number read with the row, to detect a concurrent change (optimistic locking). */
export const versionInput = wholeNumber("Version", { min: 1 });

/** An instant in the future given as an ISO date ("2027-01-31") or date-time. */
export const futureInstant = instantInput("must be a date, e.g. 2027-01-31");

export const uuidInput = z.uuid({ message: "must be an id" });

export const nameInput = z.string({ message: "is required" }).trim().min(2, "must be at least 2 characters").max(80, "must be at most 80 characters");
export const descriptionInput = z.string().trim().max(500, "must be at most 500 characters").default("");

/** Form checkboxes send "on"; the API sends booleans. */
export const checkbox = z.union([z.boolean(), z.literal("on").transform(() => true), z.literal("").transform(() => false)]).default(false);
