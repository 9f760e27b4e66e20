import { CliFailure, type AdminClient } from './admin-cli-client.ts';
import { PROJECT_SLOT, UUID, type HttpCall, type InviteArgs, type ProjectRef, type QuickstartArgs, type Role } from './admin-cli-commands.ts';

/**
 * The CLI's commands of several admin calls. Both reuse what exists and make what is missing, so
 * running one again is safe: the admin API has no lookup by slug or name, so orgs, projects, users
 * and members are found in its lists (an operator's data, a few pages at most). What was found and
 * what was made goes to stderr; stdout keeps the JSON result alone.
 */

type Note = (line: string) => void;

interface Org {
  id: string;
  slug: string;
}
interface Project {
  id: string;
  orgId: string;
  slug: string;
}
interface User {
  id: string;
  name: string;
  email?: string | null;
}
interface Member {
  userId: string;
  role: Role;
}

export interface Granted {
  orgId: string;
  projectId: string;
  userId: string;
  role: Role;
  keyId: string;
  key: string;
}

async function findOrg(client: AdminClient, slug: string): Promise<Org | undefined> {
  return (await client.sendAll<Org>({ method: 'GET', path: '/admin/v1/orgs' })).data.find((org) => org.slug === slug);
}

async function findProject(client: AdminClient, orgId: string, match: (project: Project) => boolean): Promise<Project | undefined> {
  return (await client.sendAll<Project>({ method: 'GET', path: `/admin/v1/orgs/${orgId}/projects` })).data.find(match);
}

/** By slugs: two lists. By id: the admin API cannot look a project up, so each org's projects are searched. */
async function resolveProject(client: AdminClient, ref: ProjectRef): Promise<Project> {
  if ('orgSlug' in ref) {
    const org = await findOrg(client, ref.orgSlug);
    if (!org) throw new CliFailure(`No organization has the slug "${ref.orgSlug}" (npm run admin -- orgs list --all)`);
    const project = await findProject(client, org.id, (p) => p.slug === ref.projectSlug);
    if (!project) throw new CliFailure(`Organization "${ref.orgSlug}" has no project "${ref.projectSlug}" (npm run admin -- projects list --org ${org.id})`);
    return project;
  }
  for (const org of (await client.sendAll<Org>({ method: 'GET', path: '/admin/v1/orgs' })).data) {
    const project = await findProject(client, org.id, (p) => p.id.toLowerCase() === ref.id.toLowerCase());
    if (project) return project;
  }
  throw new CliFailure(`No project has the id ${ref.id}`);
}

/** A call on a project named by slugs, with the id invite would find in its place. */
export async function withProjectId(client: AdminClient, call: HttpCall): Promise<HttpCall> {
  if (!call.project) return call;
  const { project: ref, ...rest } = call;
  return { ...rest, path: rest.path.replace(PROJECT_SLOT, (await resolveProject(client, ref)).id) };
}

/**
 * A user id is taken as given. A name picks the one user who has it; among several namesakes, the
 * one already in the organization; none: the user is made, with `email` when given. A user found
 * with another email or none gets the one given.
 */
async function resolveUser(client: AdminClient, note: Note, nameOrId: string, members: Member[], email: string | undefined): Promise<User> {
  const user = await findOrMakeUser(client, note, nameOrId, members, email);
  if (email !== undefined && user.email !== email) {
    await client.send({ method: 'PATCH', path: `/admin/v1/users/${user.id}`, body: { email } });
    note(`Email of "${user.name}" set to ${email}`);
  }
  return user;
}

async function findOrMakeUser(client: AdminClient, note: Note, nameOrId: string, members: Member[], email: string | undefined): Promise<User> {
  if (UUID.test(nameOrId)) return { id: nameOrId, name: nameOrId };
  const namesakes = (await client.sendAll<User>({ method: 'GET', path: '/admin/v1/users' })).data.filter((u) => u.name === nameOrId);
  const inOrg = namesakes.filter((u) => members.some((m) => m.userId === u.id));
  const found = namesakes.length === 1 ? namesakes[0] : inOrg.length === 1 ? inOrg[0] : undefined;
  if (found) {
    note(`User "${found.name}" exists (${found.id}): using it`);
    return found;
  }
  if (namesakes.length > 1) {
    throw new CliFailure(`${namesakes.length} users are named "${nameOrId}" (${namesakes.map((u) => u.id).join(', ')}): pass --user <userId>`);
  }
  const made = await client.send<User>({ method: 'POST', path: '/admin/v1/users', body: { name: nameOrId, email } });
  note(`User "${made.name}" created (${made.id}${email ? `, ${email}` : ''})`);
  return made;
}

/**
 * The user's membership of the project's org and a new key for the project. An existing member
 * keeps their role unless one is asked for, so inviting an owner again never demotes them.
 */
async function grant(
  client: AdminClient,
  note: Note,
  project: Project,
  userRef: { nameOrId: string; email: string | undefined },
  asked: Role | undefined,
  newMemberRole: Role,
): Promise<Granted> {
  const membersPath = `/admin/v1/orgs/${project.orgId}/members`;
  const members = (await client.sendAll<Member>({ method: 'GET', path: membersPath })).data;
  const user = await resolveUser(client, note, userRef.nameOrId, members, userRef.email);
  const current = members.find((m) => m.userId === user.id)?.role;
  const role = asked ?? current ?? newMemberRole;
  if (current === role) note(`Already a member of the organization as ${role}`);
  else {
    await client.send({ method: 'POST', path: membersPath, body: { userId: user.id, role } });
    note(current ? `Role in the organization changed from ${current} to ${role}` : `Added to the organization as ${role}`);
  }
  const key = await client.send<{ id: string; key: string }>({ method: 'POST', path: `/admin/v1/projects/${project.id}/keys`, body: { userId: user.id } });
  note(`New key ${key.id}: keep it, it is shown only once (npm run admin -- keys list --project ${project.id} lists them all)`);
  return { orgId: project.orgId, projectId: project.id, userId: user.id, role, keyId: key.id, key: key.key };
}

interface SignInLink {
  url: string;
  expiresAt: string;
}

async function makeSignInLink(client: AdminClient, note: Note, userId: string): Promise<SignInLink> {
  const link = await client.send<SignInLink>({ method: 'POST', path: `/admin/v1/users/${userId}/sign-in-links` });
  note(`Sign in to the dashboard: open ${link.url} (once, within 15 minutes)`);
  return link;
}

/** A one-time dashboard link for a user named exactly once, or given by id; nobody is created. */
export async function signInLink(client: AdminClient, note: Note, nameOrId: string): Promise<SignInLink> {
  if (UUID.test(nameOrId)) return makeSignInLink(client, note, nameOrId);
  const namesakes = (await client.sendAll<User>({ method: 'GET', path: '/admin/v1/users' })).data.filter((u) => u.name === nameOrId);
  if (namesakes.length === 0) throw new CliFailure(`No user is named "${nameOrId}" (npm run admin -- users list --all)`);
  if (namesakes.length > 1) throw new CliFailure(`${namesakes.length} users are named "${nameOrId}" (${namesakes.map((u) => u.id).join(', ')}): pass --user <userId>`);
  return makeSignInLink(client, note, namesakes[0].id);
}

/** The user's membership and key, and, as quickstart gives, a dashboard sign-in link to pass on with the key. */
export async function invite(client: AdminClient, note: Note, args: InviteArgs): Promise<Granted & { signInUrl: string }> {
  const granted = await grant(client, note, await resolveProject(client, args.project), { nameOrId: args.user, email: args.email }, args.role, 'member');
  return { ...granted, signInUrl: (await makeSignInLink(client, note, granted.userId)).url };
}

/**
 * Org, project, owner and key in one go. The project comes right after the org so that a bad
 * project slug is refused before any user exists; whatever was made is reported on failure.
 */
export async function quickstart(client: AdminClient, note: Note, args: QuickstartArgs): Promise<Granted & { signInUrl: string }> {
  const created: Record<string, string> = {};
  try {
    let org = await findOrg(client, args.orgSlug);
    if (org) note(`Organization "${args.orgSlug}" exists (${org.id}): using it`);
    else {
      org = await client.send<Org>({ method: 'POST', path: '/admin/v1/orgs', body: { name: args.orgName, slug: args.orgSlug } });
      created.orgId = org.id;
    }
    const orgId = org.id;
    let project = await findProject(client, orgId, (p) => p.slug === args.projectSlug);
    if (project) note(`Project "${args.orgSlug}/${args.projectSlug}" exists (${project.id}): using it`);
    else {
      project = await client.send<Project>({ method: 'POST', path: `/admin/v1/orgs/${orgId}/projects`, body: { name: args.projectName, slug: args.projectSlug } });
      created.projectId = project.id;
    }
    const granted = await grant(client, note, project, { nameOrId: args.userName, email: args.email }, undefined, 'owner');
    // The newcomer's next step is the dashboard: a link for the owner just made or found.
    return { ...granted, signInUrl: (await makeSignInLink(client, note, granted.userId)).url };
  } catch (error) {
    if (Object.keys(created).length > 0) note(`quickstart stopped after creating ${JSON.stringify(created)}`);
    throw error;
  }
}
