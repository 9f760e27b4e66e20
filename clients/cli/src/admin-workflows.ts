import {
  allPages,
  type LodeAdminClient,
  type Membership,
  type Organization,
  type Page,
  type PageQuery,
  type Project,
  type Role,
  type SignInLink,
  type User,
} from '@lode/sdk';
import { MAX_PAGE } from './commands/option-values.ts';
import { CliError } from './failure.ts';

/**
 * The admin commands of several calls. quickstart and invite reuse what exists and make what is
 * missing, so running one again is safe: the admin API has no lookup by slug or name, so orgs,
 * projects, users and members are found in its lists (an operator's data, a few pages at most).
 * What was found and what was made is noted on stderr; stdout keeps the JSON result alone.
 */

export interface AdminSession {
  client: LodeAdminClient;
  note: (line: string) => void;
  signal: AbortSignal;
}

/** A project by id, or by its organization's slug and its own (`studio/game`). */
export type ProjectRef = { id: string } | { orgSlug: string; projectSlug: string };

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface QuickstartArgs {
  orgSlug: string;
  orgName: string;
  projectSlug: string;
  projectName: string;
  userName: string;
  /** Given: the user made (or found without one) gets it, so the dashboard's invitations and single sign-on find them. */
  email: string | undefined;
}

export interface InviteArgs {
  project: ProjectRef;
  /** A user id, or a name: the user is made when no user has it. */
  user: string;
  /** Omitted: a new member joins as `member`, an existing one keeps their role. */
  role: Role | undefined;
  /** As QuickstartArgs.email. */
  email: string | undefined;
}

export interface Granted {
  orgId: string;
  projectId: string;
  userId: string;
  role: Role;
  keyId: string;
  key: string;
}

/** Every row of an admin list, in pages as large as the API serves. */
const everyRow = <T>(list: (page: PageQuery) => Promise<Page<T>>): Promise<T[]> => allPages((cursor) => list({ limit: MAX_PAGE, cursor }));

const everyOrg = ({ client, signal }: AdminSession) => everyRow((page) => client.listOrgs(page, { signal }));

async function findOrg(admin: AdminSession, slug: string): Promise<Organization | undefined> {
  return (await everyOrg(admin)).find((org) => org.slug === slug);
}

async function findProject({ client, signal }: AdminSession, orgId: string, match: (project: Project) => boolean): Promise<Project | undefined> {
  return (await everyRow((page) => client.listProjects(orgId, page, { signal }))).find(match);
}

/** By slugs: two lists. By id: the admin API cannot look a project up, so each org's projects are searched. */
async function resolveProject(admin: AdminSession, ref: ProjectRef): Promise<Project> {
  if ('orgSlug' in ref) {
    const org = await findOrg(admin, ref.orgSlug);
    if (!org) throw new CliError(`No organization has the slug "${ref.orgSlug}" (npm run admin -- orgs list --all)`, { code: 'org_not_found' });
    const project = await findProject(admin, org.id, (p) => p.slug === ref.projectSlug);
    if (!project)
      throw new CliError(`Organization "${ref.orgSlug}" has no project "${ref.projectSlug}" (npm run admin -- projects list --org ${org.id})`, {
        code: 'project_not_found',
      });
    return project;
  }
  for (const org of await everyOrg(admin)) {
    const project = await findProject(admin, org.id, (p) => p.id.toLowerCase() === ref.id.toLowerCase());
    if (project) return project;
  }
  throw new CliError(`No project has the id ${ref.id}`, { code: 'project_not_found' });
}

/** The id of a project named by id (taken as given) or by slugs (looked up as invite does). */
export async function projectId(admin: AdminSession, ref: ProjectRef): Promise<string> {
  return 'id' in ref ? ref.id : (await resolveProject(admin, ref)).id;
}

async function namesakes({ client, signal }: AdminSession, name: string): Promise<User[]> {
  return (await everyRow((page) => client.listUsers(page, { signal }))).filter((u) => u.name === name);
}

/** A user given by id is known by that alone: its name is the id, its email unknown. */
type KnownUser = Pick<User, 'id' | 'name'> & Partial<Pick<User, 'email'>>;

function ambiguous(name: string, users: User[]): CliError {
  return new CliError(`${users.length} users are named "${name}" (${users.map((u) => u.id).join(', ')}): pass --user <userId>`, { code: 'ambiguous_user' });
}

/**
 * A user id is taken as given. A name picks the one user who has it; among several namesakes, the
 * one already in the organization; none: the user is made, with `email` when given. A user found
 * with another email or none gets the one given.
 */
async function resolveUser(admin: AdminSession, nameOrId: string, members: Membership[], email: string | undefined): Promise<KnownUser> {
  const user = await findOrMakeUser(admin, nameOrId, members, email);
  if (email !== undefined && user.email !== email) {
    await admin.client.setUserEmail(user.id, email, { signal: admin.signal });
    admin.note(`Email of "${user.name}" set to ${email}`);
  }
  return user;
}

async function findOrMakeUser(admin: AdminSession, nameOrId: string, members: Membership[], email: string | undefined): Promise<KnownUser> {
  if (UUID.test(nameOrId)) return { id: nameOrId, name: nameOrId };
  const named = await namesakes(admin, nameOrId);
  const inOrg = named.filter((u) => members.some((m) => m.userId === u.id));
  const found = named.length === 1 ? named[0] : inOrg.length === 1 ? inOrg[0] : undefined;
  if (found) {
    admin.note(`User "${found.name}" exists (${found.id}): using it`);
    return found;
  }
  if (named.length > 1) throw ambiguous(nameOrId, named);
  const made = await admin.client.createUser({ name: nameOrId, email }, { signal: admin.signal });
  admin.note(`User "${made.name}" created (${made.id}${email ? `, ${email}` : ''})`);
  return made;
}

/**
 * The user's membership of the project's org and a new key for the project. An existing member
 * keeps their role unless one is asked for, so inviting an owner again never demotes them.
 */
async function grant(
  admin: AdminSession,
  project: Project,
  user: { nameOrId: string; email: string | undefined },
  asked: Role | undefined,
  newMemberRole: Role,
): Promise<Granted> {
  const { client, note, signal } = admin;
  const members = await everyRow((page) => client.listMembers(project.orgId, page, { signal }));
  const { id: userId } = await resolveUser(admin, user.nameOrId, members, user.email);
  const current = members.find((m) => m.userId === userId)?.role;
  const role = asked ?? current ?? newMemberRole;
  if (current === role) note(`Already a member of the organization as ${role}`);
  else {
    await client.addMember(project.orgId, { userId, role }, { signal });
    note(current ? `Role in the organization changed from ${current} to ${role}` : `Added to the organization as ${role}`);
  }
  const key = await client.createKey(project.id, userId, { signal });
  note(`New key ${key.id}: keep it, it is shown only once (npm run admin -- keys list --project ${project.id} lists them all)`);
  return { orgId: project.orgId, projectId: project.id, userId, role, keyId: key.id, key: key.key };
}

async function makeSignInLink(admin: AdminSession, userId: string): Promise<SignInLink> {
  const link = await admin.client.createSignInLink(userId, { signal: admin.signal });
  admin.note(`Sign in to the dashboard: open ${link.url} (once, within 15 minutes)`);
  return link;
}

/** A one-time dashboard link for a user named exactly once, or given by id; nobody is created. */
export async function signInLink(admin: AdminSession, nameOrId: string): Promise<SignInLink> {
  if (UUID.test(nameOrId)) return makeSignInLink(admin, nameOrId);
  const named = await namesakes(admin, nameOrId);
  if (named.length === 0) throw new CliError(`No user is named "${nameOrId}" (npm run admin -- users list --all)`, { code: 'user_not_found' });
  if (named.length > 1) throw ambiguous(nameOrId, named);
  return makeSignInLink(admin, named[0].id);
}

/** The user's membership and key, and, as quickstart gives, a dashboard sign-in link to pass on with the key. */
export async function invite(admin: AdminSession, args: InviteArgs): Promise<Granted & { signInUrl: string }> {
  const granted = await grant(admin, await resolveProject(admin, args.project), { nameOrId: args.user, email: args.email }, args.role, 'member');
  return { ...granted, signInUrl: (await makeSignInLink(admin, granted.userId)).url };
}

/**
 * Org, project, owner and key in one go. The project comes right after the org so that a bad
 * project slug is refused before any user exists; whatever was made is reported on failure.
 */
export async function quickstart(admin: AdminSession, args: QuickstartArgs): Promise<Granted & { signInUrl: string }> {
  const { client, note, signal } = admin;
  const created: Record<string, string> = {};
  try {
    let org = await findOrg(admin, args.orgSlug);
    if (org) note(`Organization "${args.orgSlug}" exists (${org.id}): using it`);
    else {
      org = await client.createOrg({ name: args.orgName, slug: args.orgSlug }, { signal });
      created.orgId = org.id;
    }
    const orgId = org.id;
    let project = await findProject(admin, orgId, (p) => p.slug === args.projectSlug);
    if (project) note(`Project "${args.orgSlug}/${args.projectSlug}" exists (${project.id}): using it`);
    else {
      project = await client.createProject(orgId, { name: args.projectName, slug: args.projectSlug }, { signal });
      created.projectId = project.id;
    }
    const granted = await grant(admin, project, { nameOrId: args.userName, email: args.email }, undefined, 'owner');
    // The newcomer's next step is the dashboard: a link for the owner just made or found.
    return { ...granted, signInUrl: (await makeSignInLink(admin, granted.userId)).url };
  } catch (error) {
    if (Object.keys(created).length > 0) note(`quickstart stopped after creating ${JSON.stringify(created)}`);
    throw error;
  }
}
