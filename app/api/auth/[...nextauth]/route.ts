import { handlers } from "@/lib/auth/nextauth";

export const { GET, POST } = handlers;
