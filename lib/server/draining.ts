/**
 * Whether this process is stopping. From the first SIGTERM, /readyz answers
 * 503 so the Service takes the pod out of its endpoints, while the server goes
 * on answering the requests already sent to it (lib/server/shutdown.ts).
 */
const globalForDraining = globalThis as unknown as { allotDraining?: boolean };

export function beginDraining(): void {
  globalForDraining.allotDraining = true;
}

export function isDraining(): boolean {
  return globalForDraining.allotDraining === true;
}
