/**
 * Operator CLI: `npm run allot -- <command>`. Uses the same configuration as
 * the portal (DATABASE_URL, or the embedded database under ALLOT_DATA_DIR; the
 * embedded one can only be opened while the portal is stopped).
 */
import { openDatabase } from "@/db/client";
import { runMigrations } from "@/db/migrate";
import { seedDemoData } from "@/db/seed";
import { verifyAuditChain } from "@/lib/audit/verify";
import { grantPlatformAdmin } from "@/lib/auth/platform-admins";
import { systemClock } from "@/lib/clock";
import { ZodError } from "zod";
import { ConfigError, config } from "@/lib/config";

const USAGE = `Usage: npm run allot -- <command>

Commands:
  migrate                 apply database migrations
  seed                    load the demo tenants, projects and personas (once per database)
  create-admin <email>    make a user a platform admin (creates the user if needed)
  verify-audit            check the audit log's hash chain
  help                    show this message`;

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === "help" || command === "--help") {
    console.log(USAGE);
    return command ? 0 : 1;
  }
  const c = config();
  const handle = openDatabase(c.database);
  const where = c.database.kind === "postgres" ? "PostgreSQL" : `embedded database in ${c.database.dataDir}`;
  try {
    switch (command) {
      case "migrate":
        await runMigrations(handle, c.database);
        console.log(`Migrations applied to the ${where}.`);
        return 0;
      case "seed": {
        await runMigrations(handle, c.database);
        const seeded = await seedDemoData(handle.db, systemClock());
        console.log(seeded ? `Demo data loaded into the ${where}.` : `Demo data was already loaded in the ${where}; nothing changed.`);
        return 0;
      }
      case "create-admin": {
        const email = args[0];
        if (!email) {
          console.error("create-admin needs an email address: npm run allot -- create-admin ops@example.com");
          return 2;
        }
        await runMigrations(handle, c.database);
        const result = await grantPlatformAdmin(handle.db, email, { principalId: null, label: "system:cli" }, systemClock());
        console.log(
          result.alreadyAdmin
            ? `${email} is already a platform admin.`
            : `${email} is now a platform admin${result.created ? " (user created; linked to their identity on first sign-in)" : ""}.`,
        );
        return 0;
      }
      case "verify-audit": {
        const result = await verifyAuditChain(handle.db);
        if (result.intact) {
          console.log(`Audit chain intact: ${result.events} events verified.`);
          return 0;
        }
        console.error(`Audit chain BROKEN at event ${result.broken.seq}: ${result.broken.reason} (${result.events} events before it verified).`);
        return 1;
      }
      default:
        console.error(`Unknown command "${command}".\n\n${USAGE}`);
        return 2;
    }
  } finally {
    await handle.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) console.error(error.message);
    else if (error instanceof ZodError) console.error(`Invalid argument: ${error.issues.map((i) => i.message).join("; ")}`);
    else console.error(error);
    process.exit(1);
  },
);
