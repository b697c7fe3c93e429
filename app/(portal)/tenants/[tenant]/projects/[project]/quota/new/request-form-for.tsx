import type { ComponentProps } from "react";
import { UsageSummary } from "@/components/quota/usage-summary";
import type { CommandContext } from "@/lib/auth/context";
import { config } from "@/lib/config";
import { dateInputValue } from "@/lib/format";
import type { requestFormBasis } from "@/lib/quota/request-form-basis";
import { RequestForm } from "./request-form";

const DAY = 86_400_000;

/**
 * The request form wired from its basis (lib/quota/request-form-basis.ts), as
 * asking and editing both show it: burst only with Kueue, the project's use
 * and spend, the currency and the dates. Only what differs is passed.
 */
export function RequestFormFor({
  ctx,
  formBasis,
  defaultDate,
  ...props
}: {
  ctx: CommandContext;
  formBasis: Awaited<ReturnType<typeof requestFormBasis>>;
  defaultDate?: string;
} & Pick<ComponentProps<typeof RequestForm>, "action" | "tenant" | "project" | "projectName" | "editing">) {
  const { models, basis, usage } = formBasis;
  const currency = config().currency;
  return (
    <RequestForm
      {...props}
      models={models}
      burstAvailable={config().cluster.render.kueue.enabled}
      basis={basis}
      usage={usage ? <UsageSummary summary={usage} currency={currency} projectName={props.projectName} /> : null}
      currency={currency}
      now={ctx.now.toISOString()}
      minDate={dateInputValue(new Date(ctx.now.getTime() + DAY))}
      defaultDate={defaultDate ?? dateInputValue(new Date(ctx.now.getTime() + 30 * DAY))}
    />
  );
}
