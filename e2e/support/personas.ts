import path from "node:path";
import { AUTH_DIR } from "./env";

/**
 * The demo personas as the issue describes them. Written out here rather than
 * imported from lib/demo so that a change to the seed has to be a deliberate
 * change to these expectations too.
 */
export const PERSONAS = {
  priya: { name: "Priya Raman", email: "priya@platform.allot.demo" },
  alex: { name: "Alex Chen", email: "alex@vision.allot.demo" },
  bo: { name: "Bo Larsen", email: "bo@language.allot.demo" },
  dana: { name: "Dana Okafor", email: "dana@vision.allot.demo" },
  vic: { name: "Vic Moreau", email: "vic@language.allot.demo" },
  cleo: { name: "Cleo Park", email: "cleo@university.example" },
} as const;

export type PersonaKey = keyof typeof PERSONAS;
export const PERSONA_KEYS = Object.keys(PERSONAS) as PersonaKey[];

/** The storageState file the setup project writes for a persona. */
export function storageStateOf(persona: PersonaKey): string {
  return path.join(AUTH_DIR, `${persona}.json`);
}

/** A context with no cookies at all, for signed-out journeys. */
export const SIGNED_OUT = { cookies: [], origins: [] };
