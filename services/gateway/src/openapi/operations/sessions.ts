import { z } from 'zod';
import { sessions } from '@lode/contracts';
import { signInBody } from '../../routes/session.ts';
import type { OperationGroup } from '../operation.ts';

/** A sign-in's answer (routes/session.ts): the new session without its token, which only the cookie carries. */
const signedIn = sessions.newSessionSchema.pick({ user: true, csrfToken: true });
/** The session read later: who is signed in; the CSRF token was given once, at sign-in. */
const sessionView = sessions.newSessionSchema.pick({ user: true });

export const sessionOperations: OperationGroup = {
  tag: 'Sessions',
  description: "A person's dashboard session: sign in by one-time link or OpenID Connect, read it, sign out.",
  operations: [
    {
      method: 'post',
      path: '/api/v1/session',
      summary: 'Sign in with a one-time link token',
      description: 'Sets the session cookie; the answer and the readable `lode_csrf` cookie carry the CSRF token writes must send, given only here.',
      auth: 'none',
      body: signInBody,
      status: 201,
      reply: signedIn,
      errors: [400, 401, 429, 503],
    },
    {
      method: 'get',
      path: '/api/v1/session/options',
      summary: 'Which sign-in methods this server offers',
      auth: 'none',
      reply: z.object({ oidc: z.boolean() }),
    },
    { method: 'get', path: '/api/v1/session', summary: 'The current session', auth: 'session', reply: sessionView },
    { method: 'delete', path: '/api/v1/session', summary: 'Sign out', auth: 'session', reply: z.object({ ended: z.literal(true) }) },
    {
      method: 'get',
      path: '/api/v1/session/oidc/start',
      summary: 'Start an OpenID Connect sign-in',
      auth: 'none',
      redirect: "the identity provider's authorization page",
      errors: [404, 503],
    },
    {
      method: 'get',
      path: '/api/v1/session/oidc/callback',
      summary: 'Finish an OpenID Connect sign-in',
      description:
        "The identity provider's redirect lands here; sets the session and `lode_csrf` cookies. A refusal redirects to `/sign-in#error=<code>` (`sign_in_failed`, `not_a_user`).",
      auth: 'none',
      redirect: 'the dashboard (`/`)',
      errors: [400, 401, 403, 404, 503],
    },
    {
      method: 'post',
      path: '/admin/v1/users/:userId/sign-in-links',
      summary: 'Make a one-time sign-in link for a user (valid 15 minutes)',
      auth: 'admin',
      status: 201,
      reply: sessions.createSignInLink.reply.pick({ expiresAt: true }).extend({ url: z.string() }),
    },
  ],
};
