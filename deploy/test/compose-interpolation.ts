/**
 * Compose's variable interpolation, as `docker compose config` applies it before reading the file:
 * `$$` is a literal `$`; `${VAR}` and `$VAR` are the value or empty; `${VAR:-default}` and
 * `${VAR-default}` fall back when unset (or, with the colon, empty); `${VAR:?message}` and
 * `${VAR?message}` stop compose with the message when unset (or, with the colon, empty). Every
 * missing required variable is reported at once, so a test names them all.
 */
export class MissingVariables extends Error {
  readonly missing: { name: string; message: string }[];

  constructor(missing: { name: string; message: string }[]) {
    super(missing.map((m) => `required variable ${m.name} is missing a value: ${m.message}`).join('\n'));
    this.missing = missing;
  }
}

const REFERENCE = /\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

export function interpolate(text: string, env: Record<string, string | undefined>): string {
  const missing: { name: string; message: string }[] = [];
  const rendered = text.replace(REFERENCE, (match, braced?: string, operator?: string, argument?: string, bare?: string) => {
    if (match === '$$') return '$';
    const name = (braced ?? bare) as string;
    const value = env[name];
    const absent = operator?.startsWith(':') ? value === undefined || value === '' : value === undefined;
    if (operator?.endsWith('-')) return absent ? (argument ?? '') : (value as string);
    if (operator?.endsWith('?')) {
      if (absent) missing.push({ name, message: argument ?? '' });
      return value ?? '';
    }
    return value ?? '';
  });
  if (missing.length > 0) throw new MissingVariables(missing);
  return rendered;
}
