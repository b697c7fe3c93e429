import "server-only";
import NextAuth, { type NextAuthConfig } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { eq } from "drizzle-orm";
import { db } from "@/db/client";
import { users } from "@/db/schema";
import { config } from "@/lib/config";
import { findDemoPersona } from "@/lib/demo/personas";
import { systemClock } from "@/lib/clock";
import { claimGroupNames } from "@/lib/groups/group-key";
import { endSession, provisionOidcUser, startSession } from "./sign-in";

declare module "next-auth" {
  interface Session {
    /** Our server-side session id; the actor is loaded from it on every request. */
    sid?: string;
  }
}

/**
 * next-auth only carries a signed cookie naming our own session row. Who the
 * principal is and what it may do is always read from the database
 * (current-actor.ts), so disabling, expiry and sign-out take effect at once.
 */
function buildAuthConfig(): NextAuthConfig {
  const c = config();
  const providers: NextAuthConfig["providers"] = [];

  if (c.demoSignIn) {
    providers.push(
      Credentials({
        id: "demo",
        name: "Demo persona",
        credentials: { persona: { label: "Persona" } },
        async authorize(credentials) {
          const persona = findDemoPersona(credentials?.persona);
          if (!persona) return null;
          const [user] = await db().select({ principalId: users.principalId }).from(users).where(eq(users.email, persona.email));
          return user ? { id: user.principalId } : null;
        },
      }),
    );
  }

  if (c.oidc) {
    providers.push({
      id: "oidc",
      name: c.oidc.displayName,
      type: "oidc",
      issuer: c.oidc.issuer,
      clientId: c.oidc.clientId,
      clientSecret: c.oidc.clientSecret,
      authorization: { params: { scope: "openid email profile" } },
      checks: ["pkce", "state", "nonce"],
      profile(profile: Record<string, unknown>) {
        return { id: String(profile.sub), email: typeof profile.email === "string" ? profile.email : null, name: typeof profile.name === "string" ? profile.name : null };
      },
    });
  }

  return {
    secret: c.authSecret,
    trustHost: true,
    providers,
    session: { strategy: "jwt", maxAge: c.sessionHours * 3600 },
    pages: { signIn: "/sign-in", error: "/sign-in" },
    callbacks: {
      async jwt({ token, user, account, profile }) {
        if (!account || !user) return token; // an existing session: nothing to do
        const now = systemClock();
        let principalId: string;
        if (account.provider === "demo") {
          principalId = String(user.id);
        } else {
          if (!c.oidc || !profile?.sub || typeof profile.email !== "string") {
            throw new Error("The identity provider did not return a subject and an email address.");
          }
          const groups = profile[c.groupsClaim];
          principalId = await provisionOidcUser(
            db(),
            {
              issuer: c.oidc.issuer,
              subject: profile.sub,
              email: profile.email,
              name: typeof profile.name === "string" ? profile.name : null,
              inAdminGroup: c.adminGroup ? Array.isArray(groups) && groups.includes(c.adminGroup) : null,
              groups: claimGroupNames(groups),
            },
            now,
          );
        }
        const sid = await startSession(db(), principalId, account.provider, now, c.sessionHours);
        // Keep the cookie minimal: no name, email or picture, only the session id.
        return { sid, sub: principalId };
      },
      session({ session, token }) {
        return { ...session, sid: typeof token.sid === "string" ? token.sid : undefined };
      },
    },
    events: {
      async signOut(message) {
        const sid = "token" in message ? message.token?.sid : undefined;
        if (typeof sid === "string") await endSession(db(), sid, systemClock());
      },
    },
  };
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => buildAuthConfig());
