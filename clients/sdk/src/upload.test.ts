import { describe, expect, it } from 'vitest';
import type { LodeClient } from './client.ts';
import { DEFAULT_RETRY } from './retry.ts';
import type { ConfirmBody, ConfirmResult, InitiateFile, InitiateResult } from './types.ts';
import { uploadFiles } from './upload.ts';

const FILE_ID = '00000000-0000-4000-8000-000000000001';
const digest = { size: 4, sha256: 'a'.repeat(64), md5: 'md5' };

/** A client whose initiates deduplicate and whose confirms answer what each round is given. */
function fakeClient(confirmRounds: ((body: ConfirmBody) => ConfirmResult)[]) {
  const initiated: InitiateFile[][] = [];
  let round = 0;
  const client = {
    transport: { retry: DEFAULT_RETRY },
    initiateBatch: async (files: InitiateFile[]): Promise<InitiateResult[]> => {
      initiated.push(files);
      return files.map(() => ({ fileId: FILE_ID, version: initiated.length, dedup: true }) as InitiateResult);
    },
    confirmBatch: async (bodies: ConfirmBody[]): Promise<ConfirmResult[]> => bodies.map(confirmRounds[round++]),
  };
  return { client: client as unknown as LodeClient, initiated };
}

describe('uploadFiles, a dedup whose content was collected before its confirm', () => {
  it('initiates the file again in another round and confirms the new answer', async () => {
    const { client, initiated } = fakeClient([
      (b) => ({ fileId: b.fileId, version: b.version, error: 'Deduplicated content not found (no longer stored; initiate again)', code: 'not_found' }),
      (b) => ({ fileId: b.fileId, version: b.version, confirmed: true }),
    ]);
    const result = await uploadFiles(client, [{ path: 'a.bin', localPath: '/nowhere', digest }]);
    expect(initiated).toHaveLength(2);
    expect(result.failures).toEqual([]);
    expect(result.done).toEqual([expect.objectContaining({ path: 'a.bin', version: 2, dedup: true })]);
  });

  it('keeps any other refusal of a confirm as the file’s failure, without a new round', async () => {
    const { client, initiated } = fakeClient([(b) => ({ fileId: b.fileId, version: b.version, error: 'Checksum mismatch', code: 'checksum_mismatch' })]);
    const result = await uploadFiles(client, [{ path: 'a.bin', localPath: '/nowhere', digest }]);
    expect(initiated).toHaveLength(1);
    expect(result.failures).toEqual([{ path: 'a.bin', code: 'checksum_mismatch', message: 'Checksum mismatch' }]);
  });
});
