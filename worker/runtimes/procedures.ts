// runtimes.list, .register, .tag, .untag, .remove (runtimes.manage): the runtimes an organization's
// engines run on. Removing one that runs named keeps those runs readable. Every change is audited.
import * as z from "zod";
import { appendAudit } from "../audit";
import { Refusal } from "../http/refusal";
import { text } from "../http/text";
import { RuntimeName } from "../records";
import { findRuntime, listRuntimes, MAX_LABELS, registerRuntime, relabel, removeRuntime } from "./store";
import { inOrganization, router } from "../trpc/builder";

const Label = text({ min: 1, max: 100 }).regex(/^[A-Za-z0-9][A-Za-z0-9._:/=-]*$/, "must be letters, digits and . _ : / = -, for example gpu or region=eu");
const noRuntime = () => new Refusal("not_found", "No such runtime in this organization.");

const list = inOrganization
  .meta({ permission: "runtimes.manage", gate: "gated", summary: "Runtimes: name, labels, last seen from engine events, runs that named it" })
  .input(z.object({ includeRemoved: z.boolean().default(false) }))
  .query(({ ctx, input }) => ctx.transaction((tx) => listRuntimes(tx, ctx.org.id, input.includeRemoved)));

const register = inOrganization
  .meta({ permission: "runtimes.manage", gate: "gated", summary: "Register a runtime by the name its engines report (payload field runtime)" })
  .input(z.object({ name: RuntimeName, labels: z.array(Label).max(MAX_LABELS).default([]) }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const runtime = await registerRuntime(tx, ctx.org.id, input.name, input.labels);
      if (!runtime) throw new Refusal("already_exists", `A runtime named ${input.name} is already registered.`);
      await appendAudit(tx, {
        orgId: ctx.org.id,
        ...ctx.actor,
        action: "runtime.registered",
        target: input.name,
        data: { runtimeId: runtime.id, labels: runtime.labels },
      });
      return runtime;
    }),
  );

const change = (kind: "tag" | "untag") =>
  inOrganization
    .meta({ permission: "runtimes.manage", gate: "gated", summary: kind === "tag" ? "Add a label to a runtime" : "Take a label off a runtime" })
    .input(z.object({ runtimeId: z.uuid(), label: Label }))
    .mutation(({ ctx, input }) =>
      ctx.transaction(async (tx) => {
        const before = await findRuntime(tx, ctx.org.id, input.runtimeId);
        if (!before) throw noRuntime();
        if (kind === "tag" && !before.labels.includes(input.label) && before.labels.length >= MAX_LABELS) {
          throw new Refusal("invalid_request", `A runtime carries at most ${MAX_LABELS} labels.`);
        }
        const runtime = (await relabel(tx, ctx.org.id, input.runtimeId, kind === "tag" ? [input.label] : [], kind === "untag" ? [input.label] : []))!;
        if (runtime.labels.join("\n") !== before.labels.join("\n")) {
          await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: `runtime.${kind}ged`, target: runtime.name, data: { label: input.label } });
        }
        return runtime;
      }),
    );

const remove = inOrganization
  .meta({ permission: "runtimes.manage", gate: "gated", summary: "Remove a runtime; runs that named it keep its name" })
  .input(z.object({ runtimeId: z.uuid() }))
  .mutation(({ ctx, input }) =>
    ctx.transaction(async (tx) => {
      const name = await removeRuntime(tx, ctx.org.id, input.runtimeId);
      if (name === null) throw noRuntime();
      await appendAudit(tx, { orgId: ctx.org.id, ...ctx.actor, action: "runtime.removed", target: name, data: { runtimeId: input.runtimeId } });
      return { runtimeId: input.runtimeId, removed: true };
    }),
  );

export const runtimesRouter = router({ list, register, tag: change("tag"), untag: change("untag"), remove });
