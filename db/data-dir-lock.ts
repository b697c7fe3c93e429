import fs from "node:fs";
import path from "node:path";

export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `The embedded database in ${dir} is in use by process ${pid}. Stop that process (the portal or another CLI command) first, or set DATABASE_URL to use PostgreSQL.`,
    );
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Take an exclusive lock on a PGlite data directory; returns the release function. */
export function acquireDataDirLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(path.dirname(path.resolve(dataDir)), `${path.basename(path.resolve(dataDir))}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: "wx" });
      const release = () => {
        try {
          if (fs.readFileSync(lockFile, "utf8") === String(process.pid)) fs.unlinkSync(lockFile);
        } catch {
          // already gone
        }
      };
      process.once("exit", release);
      return release;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const holder = Number(fs.readFileSync(lockFile, "utf8"));
      if (holder === process.pid) return () => {};
      if (Number.isInteger(holder) && holder > 0 && processIsAlive(holder)) throw new DataDirLockedError(dataDir, holder);
      fs.unlinkSync(lockFile); // stale lock from a process that died
    }
  }
  throw new Error(`Could not lock ${dataDir}`);
}
