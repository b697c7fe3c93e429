import { me } from "@/lib/api/routes/me";

export const GET = me.handle;
