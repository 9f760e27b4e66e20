/** A retention rule as the form edits it: numbers stay text until they are saved. */
export interface RuleDraft {
  glob: string;
  keepLast: string;
  keepDays: string;
}

export interface Rule {
  glob: string;
  keepLast?: number;
  keepDays?: number;
}

export function toDraft(rule: Rule): RuleDraft {
  return { glob: rule.glob, keepLast: rule.keepLast?.toString() ?? '', keepDays: rule.keepDays?.toString() ?? '' };
}

export const EMPTY_DRAFT: RuleDraft = { glob: '', keepLast: '', keepDays: '' };

/**
 * The rules the form's rows describe, or what is wrong with the first row that cannot be one. The
 * server checks everything again (globs, limits) and names the field it refuses; this catches only
 * what a form can get wrong on its own, so that the answer to a slip is immediate.
 */
export function rulesFromDrafts(drafts: readonly RuleDraft[]): { rules: Rule[] } | { error: string } {
  const rules: Rule[] = [];
  for (const [i, draft] of drafts.entries()) {
    const glob = draft.glob.trim();
    const keepLast = wholeNumber(draft.keepLast);
    const keepDays = wholeNumber(draft.keepDays);
    const row = `Rule ${i + 1}`;
    if (glob === '') return { error: `${row}: give the paths it applies to, such as Levels/**/*.umap` };
    if (keepLast === null || keepDays === null) return { error: `${row}: keep counts are whole numbers of at least 1` };
    if (keepLast === undefined && keepDays === undefined) return { error: `${row}: keep the last N versions, the last D days, or both` };
    rules.push({ glob, ...(keepLast !== undefined && { keepLast }), ...(keepDays !== undefined && { keepDays }) });
  }
  return { rules };
}

/** undefined for an empty field, null for one that is not a whole number of at least 1. */
function wholeNumber(text: string): number | undefined | null {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const value = Number(trimmed);
  return Number.isInteger(value) && value >= 1 ? value : null;
}

/** What a rule keeps, in words: "the last 5 versions and those of the last 30 days". */
export function describeRule(rule: Rule): string {
  const parts = [
    rule.keepLast !== undefined && `the last ${rule.keepLast} version${rule.keepLast === 1 ? '' : 's'}`,
    rule.keepDays !== undefined && `versions of the last ${rule.keepDays} day${rule.keepDays === 1 ? '' : 's'}`,
  ].filter((part): part is string => typeof part === 'string');
  return `keeps ${parts.join(' and ')}`;
}
