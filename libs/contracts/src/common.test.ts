import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '@lode/errors';
import { assertUniqueFileIds, findDuplicates, managesOrg } from './common.ts';

const file = randomUUID();
const other = randomUUID();

describe('file ids named twice', () => {
  it('finds each repeated id once', () => {
    expect(findDuplicates([file, other, file, file])).toEqual([file]);
  });

  it('refuses a batch naming a file twice with a validation error listing the ids', () => {
    expect(() => assertUniqueFileIds([file, other], 'commit')).not.toThrow();
    try {
      assertUniqueFileIds([file, other, file], 'commit');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).toJSON()).toEqual({ code: 'validation_failed', message: 'Each file may appear once per commit', duplicateFileIds: [file] });
    }
  });
});

describe('who manages an org', () => {
  it('is its owners and admins, never a member', () => {
    expect([managesOrg('owner'), managesOrg('admin'), managesOrg('member')]).toEqual([true, true, false]);
  });
});
