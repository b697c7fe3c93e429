import { z } from "zod";

/**
 * Path parameters shared by the REST routes. They are only addresses: a slug
 * that names nothing (or nothing in reach) becomes a 404 in the command or query.
 */
export const tenantParams = z.object({ tenant: z.string().max(64) });
export const projectParams = tenantParams.extend({ project: z.string().max(64) });
