import { describe, expect, it } from 'vitest';
import { describeRule, EMPTY_DRAFT, rulesFromDrafts, toDraft } from './retention.ts';

describe('the retention rules form', () => {
  it('turns rows into rules, leaving out the limits left empty', () => {
    expect(
      rulesFromDrafts([
        { glob: ' Levels/**/*.umap ', keepLast: '5', keepDays: '' },
        { glob: 'Renders/**', keepLast: '', keepDays: '30' },
        { glob: '**/*.psd', keepLast: '2', keepDays: '7' },
      ]),
    ).toEqual({
      rules: [
        { glob: 'Levels/**/*.umap', keepLast: 5 },
        { glob: 'Renders/**', keepDays: 30 },
        { glob: '**/*.psd', keepLast: 2, keepDays: 7 },
      ],
    });
    expect(rulesFromDrafts([])).toEqual({ rules: [] });
  });

  it('names the first row that cannot be a rule', () => {
    expect(rulesFromDrafts([EMPTY_DRAFT])).toEqual({ error: expect.stringMatching(/^Rule 1: give the paths/) });
    expect(
      rulesFromDrafts([
        { glob: 'a/**', keepLast: '3', keepDays: '' },
        { glob: 'b/**', keepLast: '', keepDays: '' },
      ]),
    ).toEqual({
      error: expect.stringMatching(/^Rule 2: keep the last N versions/),
    });
    for (const bad of ['0', '-1', '2.5', 'ten']) {
      expect(rulesFromDrafts([{ glob: 'a/**', keepLast: bad, keepDays: '' }])).toEqual({ error: expect.stringMatching(/whole numbers/) });
    }
  });

  it('reads a saved rule back into the form unchanged', () => {
    const rule = { glob: 'Levels/**', keepLast: 4, keepDays: 90 };
    expect(rulesFromDrafts([toDraft(rule)])).toEqual({ rules: [rule] });
    expect(toDraft({ glob: 'x/**', keepDays: 1 })).toEqual({ glob: 'x/**', keepLast: '', keepDays: '1' });
  });

  it('says what a rule keeps', () => {
    expect(describeRule({ glob: 'a', keepLast: 1 })).toBe('keeps the last 1 version');
    expect(describeRule({ glob: 'a', keepDays: 30 })).toBe('keeps versions of the last 30 days');
    expect(describeRule({ glob: 'a', keepLast: 5, keepDays: 1 })).toBe('keeps the last 5 versions and versions of the last 1 day');
  });
});
