import { sessions } from '@lode/contracts';
import type { Bus } from '@lode/bus';
import type { SessionsService } from '../domain/sessions-service.ts';

/** Sign-in links, OpenID Connect sign-in, session resolution and sign-out. */
export function serveSessions(bus: Bus, service: SessionsService): void {
  bus.serve(sessions.createSignInLink, ({ userId }) => service.createSignInLink(userId));
  bus.serve(sessions.redeemSignInLink, ({ token }) => service.redeemSignInLink(token));
  bus.serve(sessions.signInWithOidc, (claims) => service.signInWithOidc(claims));
  bus.serve(sessions.resolveSession, ({ tokenHash, projectId }) => service.resolve(tokenHash, projectId));
  bus.serve(sessions.endSession, ({ tokenHash }) => service.end(tokenHash));
}
