import { randomUUID } from 'node:crypto';
import { errors } from '@lode/errors';
import type { Database } from '@lode/db';
import { sessions, type ParsedRequestOf } from '@lode/contracts';
import type { KeyIdentitiesRepository } from '../repo/key-identities-repo.ts';
import type { SessionsRepository } from '../repo/sessions-repo.ts';
import type { UsersRepository } from '../repo/users-repo.ts';
import type { UserRow } from '../repo/rows.ts';
import { generateToken, linkableEmail, SIGN_IN_LINK_TTL_MS, type SessionLifetime } from './session-rules.ts';

const sessionUser = (u: UserRow): sessions.SessionUser => ({ id: u.id, name: u.name, avatarUrl: u.avatar_url, email: u.email });

/** People's sign-in: one-time links, OpenID Connect, and the server-side sessions both start. */
export class SessionsService {
  readonly #db: Database;
  readonly #sessions: SessionsRepository;
  readonly #users: UsersRepository;
  readonly #identities: KeyIdentitiesRepository;
  readonly #lifetime: SessionLifetime;

  constructor(deps: { db: Database; sessions: SessionsRepository; users: UsersRepository; identities: KeyIdentitiesRepository; lifetime: SessionLifetime }) {
    this.#db = deps.db;
    this.#sessions = deps.sessions;
    this.#users = deps.users;
    this.#identities = deps.identities;
    this.#lifetime = deps.lifetime;
  }

  async createSignInLink(userId: string) {
    if (!(await this.#users.find(this.#db, userId))) throw errors.notFound('User');
    const token = generateToken();
    const expiresAt = await this.#sessions.insertLink(this.#db, { tokenHash: sessions.tokenHash(token), userId, ttlMs: SIGN_IN_LINK_TTL_MS });
    return { token, expiresAt: expiresAt.toISOString() };
  }

  async redeemSignInLink(token: string) {
    const userId = await this.#sessions.spendLink(this.#db, sessions.tokenHash(token));
    if (!userId) throw errors.unauthorized('This sign-in link is unknown, used or expired: ask for a new one');
    return this.#start(userId);
  }

  async signInWithOidc(claims: ParsedRequestOf<typeof sessions.signInWithOidc>) {
    const linked = await this.#sessions.findOidcUser(this.#db, claims.issuer, claims.subject);
    if (linked) return this.#start(linked);
    const email = linkableEmail(claims);
    const user = email ? await this.#users.findByEmail(this.#db, email) : undefined;
    if (!user) throw errors.forbidden('No Lode user has this verified email: ask an administrator to add you');
    await this.#sessions.linkOidc(this.#db, claims.issuer, claims.subject, user.id);
    return this.#start(user.id);
  }

  async resolve(tokenHash: string, projectId: string | null) {
    const row = await this.#sessions.touch(this.#db, tokenHash, this.#lifetime);
    if (!row) return { session: null, project: null };
    const project = projectId ? ((await this.#identities.findForSession(this.#db, row.session_id, row.id, projectId)) ?? null) : null;
    return { session: { id: row.session_id, csrfTokenHash: row.csrf_token_hash, user: sessionUser(row) }, project };
  }

  async end(tokenHash: string) {
    return { ended: await this.#sessions.end(this.#db, tokenHash) };
  }

  /** Used or expired links and ended, idle or too old sessions are never read again: deleted, so neither table grows forever. */
  purgeSpent() {
    return this.#sessions.purgeSpent(this.#db, this.#lifetime);
  }

  async #start(userId: string) {
    const user = await this.#users.find(this.#db, userId);
    if (!user) throw errors.notFound('User');
    const token = generateToken();
    // Both tokens leave here once, in this reply; only their hashes are kept.
    const csrfToken = generateToken();
    await this.#sessions.insertSession(this.#db, {
      id: randomUUID(),
      tokenHash: sessions.tokenHash(token),
      csrfTokenHash: sessions.tokenHash(csrfToken),
      userId,
    });
    return { token, csrfToken, user: sessionUser(user) };
  }
}
