"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formAction } from "@/lib/auth/form-action";
import { addRate, createNodePool, deleteNodePool, importNodePools, setQuotaPolicy, updateNodePool } from "@/lib/quota/commands/capacity";

const refresh = () => revalidatePath("/", "layout");

export const createNodePoolAction = formAction(createNodePool, (pool) => {
  refresh();
  return { message: `Node pool ${pool.name} added.` };
});

export const updateNodePoolAction = formAction(updateNodePool, (pool) => {
  refresh();
  return { message: `Node pool ${pool.name} saved.` };
});

export const deleteNodePoolAction = formAction(deleteNodePool, (pool) => {
  refresh();
  return { message: `Node pool ${pool.name} deleted.` };
});

export const addRateAction = formAction(addRate, () => {
  refresh();
  return { message: "Price added." };
});

export const setQuotaPolicyAction = formAction(setQuotaPolicy, () => {
  refresh();
  return { message: "Approval rules saved." };
});

/** Back to the pools, which now show what was imported. */
export const importNodePoolsAction = formAction(importNodePools, (r) => {
  refresh();
  redirect(`/admin/capacity?imported=${r.created.length + r.updated.length}`);
});
