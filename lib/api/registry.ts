import "server-only";
import type { AnyApiRoute } from "./route";
import * as audit from "./routes/audit";
import * as collaborators from "./routes/collaborators";
import * as me from "./routes/me";
import * as members from "./routes/members";
import * as projects from "./routes/projects";
import * as serviceAccounts from "./routes/service-accounts";
import * as tenants from "./routes/tenants";

/** Every /api/v1 endpoint, for the OpenAPI document and its docs page. */
export const API_ROUTES: AnyApiRoute[] = [me, tenants, projects, members, collaborators, serviceAccounts, audit]
  .flatMap((module) => Object.values(module))
  .filter((value): value is { spec: AnyApiRoute; handle: unknown } => typeof value === "object" && value !== null && "spec" in value && "handle" in value)
  .map((route) => route.spec);
