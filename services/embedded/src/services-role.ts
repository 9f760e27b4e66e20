import pg from 'pg';

/**
 * The embedded Postgres's roles. The services connect as a role that owns Lode's database and
 * everything in it (so it runs their migrations) and nothing more: not a superuser, so a query
 * that goes wrong in a service can neither run programs as the Postgres user (COPY ... PROGRAM),
 * read the server's files, nor create roles. The superuser is used at start only, to make that
 * role and hand it what an earlier version created as the superuser.
 */

export const SUPERUSER = 'postgres';
export const SERVICES_ROLE = 'lode';
export const DATABASE = 'lode';
/** Every embedded data directory made before the superuser got a generated password has this one. */
const LEGACY_SUPERUSER_PASSWORD = 'lode-embedded';
const INVALID_PASSWORD = '28P01';

export interface Credentials {
  /** The directory of the server's Unix socket. */
  host: string;
  port: number;
  password: string;
}

/**
 * Creates the services' role and Lode's database if missing and makes the role their owner, with
 * `password`; in Lode's database, hands the role every object the superuser owns outside the system
 * schemas (an earlier version connected the services as the superuser). Idempotent: run at every start.
 */
export async function grantServicesRole(superuser: Credentials, password: string): Promise<void> {
  await asSuperuser(superuser, 'postgres', async (client) => {
    const role = pg.escapeIdentifier(SERVICES_ROLE);
    const roleExists = (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [SERVICES_ROLE])).rowCount !== 0;
    // ALTER as well as CREATE: a role left with other attributes or a lost password is put right.
    await client.query(
      `${roleExists ? 'ALTER' : 'CREATE'} ROLE ${role} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${client.escapeLiteral(password)}`,
    );
    const database = pg.escapeIdentifier(DATABASE);
    const databaseExists = (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE])).rowCount !== 0;
    await client.query(databaseExists ? `ALTER DATABASE ${database} OWNER TO ${role}` : `CREATE DATABASE ${database} OWNER ${role}`);
  });
  await asSuperuser(superuser, DATABASE, (client) => client.query(reassignToServicesRole()));
}

/**
 * REASSIGN OWNED cannot take objects from the bootstrap superuser (it owns the system catalogs), so
 * each object outside the system schemas is altered on its own: schemas; tables, views and
 * sequences (a table takes its indexes, and the sequences behind its serial and identity columns,
 * along); functions and procedures; and types that are neither a table's row type nor an array.
 */
function reassignToServicesRole(): string {
  const role = pg.escapeLiteral(SERVICES_ROLE);
  return `DO $$
DECLARE
  statement text;
BEGIN
  FOR statement IN
    WITH superuser AS (SELECT oid FROM pg_roles WHERE rolname = current_user),
    lode_schemas AS (SELECT oid, nspname, nspowner FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema')
    SELECT format('ALTER SCHEMA %I OWNER TO %I', nspname, ${role})
      FROM lode_schemas WHERE nspowner = (SELECT oid FROM superuser)
    UNION ALL
    SELECT format('ALTER %s %I.%I OWNER TO %I',
        CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
        s.nspname, c.relname, ${role})
      FROM pg_class c JOIN lode_schemas s ON s.oid = c.relnamespace
      WHERE c.relowner = (SELECT oid FROM superuser)
        AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
        AND (c.relkind <> 'S' OR NOT EXISTS (
          SELECT 1 FROM pg_depend d
          WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')))
    UNION ALL
    SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, ${role})
      FROM pg_proc p JOIN lode_schemas s ON s.oid = p.pronamespace
      WHERE p.proowner = (SELECT oid FROM superuser)
    UNION ALL
    SELECT format('ALTER TYPE %I.%I OWNER TO %I', s.nspname, t.typname, ${role})
      FROM pg_type t JOIN lode_schemas s ON s.oid = t.typnamespace
      WHERE t.typowner = (SELECT oid FROM superuser)
        AND t.typtype IN ('c', 'd', 'e', 'r')
        AND NOT EXISTS (SELECT 1 FROM pg_type element WHERE element.typarray = t.oid)
        AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
  LOOP
    EXECUTE statement;
  END LOOP;
END
$$`;
}

/** A session as the superuser for `work`, closed after it. */
async function asSuperuser<T>(credentials: Credentials, database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = await connectAsSuperuser(credentials, database);
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A data directory that still has the superuser's old fixed password gets the generated one here:
 * the old one is tried only when the generated one is refused.
 */
async function connectAsSuperuser(credentials: Credentials, database: string): Promise<pg.Client> {
  const connect = async (password: string) => {
    const client = new pg.Client({ host: credentials.host, port: credentials.port, user: SUPERUSER, password, database });
    await client.connect().catch(async (error: unknown) => {
      await client.end().catch(() => undefined);
      throw error;
    });
    return client;
  };
  try {
    return await connect(credentials.password);
  } catch (refused) {
    if ((refused as { code?: unknown }).code !== INVALID_PASSWORD) throw refused;
    // Refused with the old one as well: the generated password's own refusal says more.
    const legacy = await connect(LEGACY_SUPERUSER_PASSWORD).catch(() => undefined);
    if (!legacy) throw refused;
    await legacy.query(`ALTER ROLE ${pg.escapeIdentifier(SUPERUSER)} PASSWORD ${legacy.escapeLiteral(credentials.password)}`).catch(async (error: unknown) => {
      await legacy.end();
      throw error;
    });
    return legacy;
  }
}
