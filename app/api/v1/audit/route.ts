import { listAudit } from "@/lib/api/routes/audit";

export const GET = listAudit.handle;
