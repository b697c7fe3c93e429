import "server-only";
import type { AnyApiRoute } from "./route";
import * as audit from "./routes/audit";
import * as capacity from "./routes/capacity";
import * as collaborators from "./routes/collaborators";
import * as envelopes from "./routes/envelopes";
import * as extensions from "./routes/extensions";
import * as federation from "./routes/federation";
import * as groups from "./routes/groups";
import * as me from "./routes/me";
import * as members from "./routes/members";
import * as metering from "./routes/metering";
import * as projects from "./routes/projects";
import * as quota from "./routes/quota";
import * as serviceAccounts from "./routes/service-accounts";
import * as share from "./routes/share";
import * as tenants from "./routes/tenants";

export type RouteHandler = (request: Request, context?: { params?: Promise<Record<string, string | string[]>> }) => Promise<Response>;
export type RegisteredRoute = { spec: AnyApiRoute; handle: RouteHandler };

/** Every /api/v1 endpoint, for the OpenAPI document, its docs page and the route files. */
const isRoute = (value: unknown): value is RegisteredRoute => typeof value === "object" && value !== null && "spec" in value && "handle" in value;

export const REGISTERED_ROUTES: RegisteredRoute[] = [me, tenants, projects, members, collaborators, extensions, groups, serviceAccounts, federation, audit, capacity, quota, envelopes, share, metering]
  .flatMap((module) => Object.values(module) as unknown[])
  .filter(isRoute);

export const API_ROUTES: AnyApiRoute[] = REGISTERED_ROUTES.map((route) => route.spec);
