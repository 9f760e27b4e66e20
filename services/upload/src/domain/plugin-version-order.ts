/**
 * Semver precedence as a string that sorts the same way byte by byte (the column's "C" collation), so
 * the newest version, the versions list and its keyset cursor are plain indexed comparisons.
 *
 * - A number becomes its digit count (two digits) then its digits: 9 < 10 as "019" < "0210".
 *   Strict semver has no leading zeros, so equal counts compare digit by digit.
 * - A release ends in "~", above the "-" that starts a pre-release: 1.0.0-rc.1 < 1.0.0.
 * - Pre-release identifiers: numeric ones as "0" + number, below alphanumeric ones as "1" + text
 *   (ASCII order, as semver compares them), joined by "!", which sorts below every identifier
 *   character, so a shorter set of otherwise equal identifiers comes first: alpha < alpha.1 < alpha-x.
 * - Build metadata takes no part: versions that differ only in it have one key, as they have one precedence.
 *
 * The version must already be valid strict semver (contracts' pluginVersion).
 */
export function versionOrderKey(version: string): string {
  const withoutBuild = version.split('+', 1)[0] ?? version;
  const dash = withoutBuild.indexOf('-');
  const core = dash === -1 ? withoutBuild : withoutBuild.slice(0, dash);
  const prerelease = dash === -1 ? undefined : withoutBuild.slice(dash + 1);
  const coreKey = core.split('.').map(numberKey).join('.');
  if (prerelease === undefined) return `${coreKey}~`;
  const identifiers = prerelease.split('.').map((id) => (/^[0-9]+$/.test(id) ? `0${numberKey(id)}` : `1${id}`));
  return `${coreKey}-${identifiers.join('!')}`;
}

function numberKey(digits: string): string {
  return `${String(digits.length).padStart(2, '0')}${digits}`;
}
