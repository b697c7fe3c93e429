import type { z } from "zod";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/observability/log";
import { inSpan } from "@/lib/observability/tracing";
import type { Resource } from "./actor";
import type { CommandContext } from "./context";
import { can, decide, type Action } from "./policy";
import { parseInput } from "@/lib/input/messages";

/**
 * A command is the one implementation of something a principal can do. Server
 * actions, API routes and the CLI all run it through `executeCommand`, which
 * fixes the order: parse the input, find the row acted on (the tenant comes
 * from that row, never from the input), ask the policy, then run.
 */
export type Command<Schema extends z.ZodType, Target extends Resource, Result> = {
  name: string;
  input: Schema;
  /** Load what is acted on and say which action it is. Throw not_found if it does not exist. */
  target: (ctx: CommandContext, input: z.output<Schema>) => Promise<{ action: Action; resource: Target }>;
  run: (ctx: CommandContext, input: z.output<Schema>, resource: Target) => Promise<Result>;
};

export function defineCommand<Schema extends z.ZodType, Target extends Resource, Result>(
  command: Command<Schema, Target, Result>,
): Command<Schema, Target, Result> {
  return command;
}

/** Turn a zod error into messages per field ("slug" -> ["Enter at most 63 characters."]); problems of the whole input are "_form". */
export function fieldErrorsOf(error: z.ZodError): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join(".") : "_form";
    (fields[key] ??= []).push(issue.message);
  }
  return fields;
}

// A review item is seen by exactly those who may decide it, so a refusal there is always not_found.
const VIEW_ACTION: Record<Resource["kind"], Action | null> = { platform: null, tenant: "tenant.view", project: "project.view", review_item: "access_review.item.decide" };

export async function executeCommand<Schema extends z.ZodType, Target extends Resource, Result>(
  command: Command<Schema, Target, Result>,
  ctx: CommandContext,
  rawInput: unknown,
): Promise<Result> {
  // One span per command, whoever runs it (page, API, CLI): what it does on the cluster or elsewhere nests under it.
  return inSpan(`command ${command.name}`, { "allot.command": command.name, "allot.principal.id": ctx.actor.principalId, "allot.principal.kind": ctx.actor.kind }, async () => {
    const who = { command: command.name, principalId: ctx.actor.principalId, principalKind: ctx.actor.kind };
    try {
      const result = await runCommand(command, ctx, rawInput);
      log().info({ ...who, outcome: "ok" }, `command ${command.name}`);
      return result;
    } catch (error) {
      // A refusal is the caller's mistake, said to them; anything else is logged once, with its reference, where it is reported.
      if (error instanceof AppError) log().info({ ...who, outcome: error.code }, `command ${command.name} refused`);
      throw error;
    }
  });
}

async function runCommand<Schema extends z.ZodType, Target extends Resource, Result>(command: Command<Schema, Target, Result>, ctx: CommandContext, rawInput: unknown): Promise<Result> {
  const parsed = parseInput(command.input, rawInput);
  if (!parsed.success) throw new AppError("validation", undefined, fieldErrorsOf(parsed.error));
  const { action, resource } = await command.target(ctx, parsed.data);
  if (!decide(ctx.actor, action, resource, ctx.now).allowed) {
    // Someone who cannot even see the thing learns nothing about whether it exists.
    const viewAction = VIEW_ACTION[resource.kind];
    const canSee = viewAction === null || can(ctx.actor, viewAction, resource, ctx.now);
    throw new AppError(canSee ? "forbidden" : "not_found");
  }
  return command.run(ctx, parsed.data, resource);
}
