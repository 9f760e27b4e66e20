// Settings come from `k6 run -e NAME=value` (or the process environment). A malformed value throws
// at once naming the variable, so a typo never silently runs the default test.

function raw(name: string): string | undefined {
  const value = __ENV[name];
  return value === undefined || value === '' ? undefined : value;
}

export function stringEnv(name: string, fallback: string): string {
  return raw(name) ?? fallback;
}

/** Required only where it is used (setup, teardown), so `k6 archive` and `k6 inspect` work without it. */
export function requiredEnv(name: string): string {
  const value = raw(name);
  if (value === undefined) throw new Error(`${name} is required (k6 run -e ${name}=...)`);
  return value;
}

export function intEnv(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = raw(name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return parsed;
}

export function fractionEnv(name: string, fallback: number): number {
  const value = raw(name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0 || parsed > 1) throw new Error(`${name} must be a number from 0 to 1, got "${value}"`);
  return parsed;
}

export function boolEnv(name: string): boolean {
  const value = raw(name);
  if (value === undefined) return false;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`${name} must be true or false, got "${value}"`);
}

/** A k6 duration such as `90s`, `10m` or `1h30m`. */
export function durationEnv(name: string, fallback: string): string {
  const value = raw(name);
  if (value === undefined) return fallback;
  if (!/^(\d+(ms|s|m|h))+$/.test(value)) throw new Error(`${name} must be a k6 duration such as 90s, 10m or 1h30m, got "${value}"`);
  return value;
}

export function oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const value = raw(name);
  if (value === undefined) return fallback;
  const found = allowed.find((candidate) => candidate === value);
  if (found === undefined) throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  return found;
}
