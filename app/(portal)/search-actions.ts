"use server";

import { currentContext } from "@/lib/auth/current-actor";
import { paletteQueryInput, searchPalette, type PaletteItem } from "@/lib/search/palette";

export type PaletteAnswer = { items: PaletteItem[]; message: null } | { items: []; message: string };

/** The command palette's search: the query parsed, then searched as the signed-in person (the policy decides each row). */
export async function searchPaletteAction(query: unknown): Promise<PaletteAnswer> {
  const ctx = await currentContext();
  if (!ctx) return { items: [], message: "Your session has ended: sign in again to search." };
  const parsed = paletteQueryInput.safeParse({ q: query });
  if (!parsed.success) return { items: [], message: parsed.error.issues[0]?.message ?? "Enter something to search for." };
  return { items: await searchPalette(ctx, parsed.data.q), message: null };
}
