import "server-only";
import type { AnyApiRoute } from "./route";
import * as audit from "./routes/audit";
import * as capacity from "./routes/capacity";
import * as collaborators from "./routes/collaborators";
import * as me from "./routes/me";
import * as members from "./routes/members";
import * as metering from "./routes/metering";
import * as projects from "./routes/projects";
import * as quota from "./routes/quota";
import * as serviceAccounts from "./routes/service-accounts";
import * as tenants from "./routes/tenants";

/** Every /api/v1 endpoint, for the OpenAPI document and its docs page. */
const isRoute = (value: unknown): value is { spec: AnyApiRoute } => typeof value === "object" && value !== null && "spec" in value && "handle" in value;

export const API_ROUTES: AnyApiRoute[] = [me, tenants, projects, members, collaborators, serviceAccounts, audit, capacity, quota, metering]
  .flatMap((module) => Object.values(module) as unknown[])
  .filter(isRoute)
  .map((route) => route.spec);
