/**
 * The demo personas offered on the sign-in page when demo sign-in is on. The
 * seed (db/seed.ts) creates them with these emails; sign-in matches on email.
 */
export type DemoPersona = { key: string; email: string; name: string; title: string; summary: string };

export const DEMO_PERSONAS: readonly DemoPersona[] = [
  {
    key: "platform-admin",
    email: "priya@platform.allot.demo",
    name: "Priya Raman",
    title: "Platform admin",
    summary: "Runs the cluster: sees every tenant and the admin area.",
  },
  {
    key: "vision-admin",
    email: "alex@vision.allot.demo",
    name: "Alex Chen",
    title: "Tenant admin, Vision Lab",
    summary: "Administers the Vision Lab tenant and all its projects.",
  },
  {
    key: "language-admin",
    email: "bo@language.allot.demo",
    name: "Bo Larsen",
    title: "Tenant admin, Language Models",
    summary: "Administers the Language Models tenant and all its projects.",
  },
  {
    key: "data-scientist",
    email: "dana@vision.allot.demo",
    name: "Dana Okafor",
    title: "Data scientist, Vision Lab",
    summary: "Member of Vision Lab, working in one project: Detector training.",
  },
  {
    key: "viewer",
    email: "vic@language.allot.demo",
    name: "Vic Moreau",
    title: "Viewer, Language Models",
    summary: "Reads every Language Models project; changes nothing.",
  },
  {
    key: "collaborator",
    email: "cleo@university.example",
    name: "Cleo Park",
    title: "External collaborator",
    summary: "Outside researcher with an expiring grant on one Language Models project.",
  },
];

export function findDemoPersona(key: unknown): DemoPersona | undefined {
  return DEMO_PERSONAS.find((p) => p.key === key);
}
