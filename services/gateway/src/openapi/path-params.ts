import { z } from 'zod';
import { uuid } from '@lode/contracts';

/** `/a/:b/c` as OpenAPI writes it: `/a/{b}/c`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:(\w+)/g, '{$1}');
}

/** The parameter names of an express route template, in order: `/a/:b/c/:d` → b, d. */
export const paramNames = (expressPath: string): string[] => [...expressPath.matchAll(/:(\w+)/g)].map((m) => m[1] ?? '');
const isId = (name: string) => name.endsWith('Id');

/**
 * Whether the path names something by id, which may not exist (or not be the caller's to see): the
 * routes answer 404 for an unknown id and a malformed one alike (docs/api.md, Input rules).
 */
export function namesById(expressPath: string): boolean {
  return paramNames(expressPath).some(isId);
}

/**
 * The path parameters of an express route template, as the zod object OpenAPI renders: `…Id` is a
 * UUID (the routes answer 404 for anything else) unless the operation says otherwise; any other
 * name must be given by the operation, or building the description fails (and its test with it).
 */
export function pathParams(expressPath: string, given: z.ZodRawShape = {}): z.ZodObject | undefined {
  const names = paramNames(expressPath);
  if (names.length === 0) return undefined;
  return z.object(
    Object.fromEntries(
      names.map((name) => {
        const schema = given[name] ?? (isId(name) ? uuid : undefined);
        if (!schema) throw new Error(`Path parameter :${name} of ${expressPath} needs a schema in its operation's params`);
        return [name, schema];
      }),
    ),
  );
}
