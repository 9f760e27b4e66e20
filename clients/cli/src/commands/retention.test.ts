import { describe, expect, it } from 'vitest';
import { LodeApiError } from '@lode/sdk';
import type { CliError } from '../failure.ts';
import { explainRefusal } from './retention.ts';

describe('a refused retention run', () => {
  const refusal = (status: number, code: string, body: Record<string, unknown>) => new LodeApiError(status, { code, ...body }, null);
  const explained = (error: unknown): CliError => {
    try {
      explainRefusal(error);
    } catch (thrown) {
      return thrown as CliError;
    }
    throw new Error('not thrown');
  };

  it("says how many versions a run removed before its plan changed, from the error's details, not its message", () => {
    const stopped = explained(refusal(409, 'conflict', { reason: 'plan_changed', removedVersions: 2, message: 'changed' }));
    expect(stopped).toMatchObject({ exitCode: 3, code: 'conflict', details: expect.objectContaining({ reason: 'plan_changed', removedVersions: 2 }) });
    expect(stopped.message).toMatch(
      /^Removed 2 versions of the plan, then stopped: what the rules remove changed since the dry run\. Run `lode retention run` again/,
    );
    const untouched = explained(refusal(409, 'conflict', { reason: 'plan_changed', removedVersions: 0, message: '3 versions of the plan were removed' }));
    expect(untouched.message).toMatch(/^Nothing was removed: what the rules remove changed since the dry run\./);
  });

  it('tells an expired confirmation apart, and names who may run the rules', () => {
    expect(explained(refusal(409, 'conflict', { reason: 'expired', removedVersions: 0, message: 'expired' })).message).toMatch(
      /^Nothing was removed: its confirmation expired/,
    );
    expect(explained(refusal(403, 'forbidden', { message: 'refused' }))).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/owners and admins/),
    });
  });
});
