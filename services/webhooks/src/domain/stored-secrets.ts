import type { Database } from '@lode/db';
import type { WebhooksRepository } from '../repo/webhooks-repo.ts';
import { SEALED_PREFIX, type SecretBox } from './secret-box.ts';

/** Secrets sealed per statement: one round trip each, a bounded statement whatever the table's size. */
const SEAL_BATCH = 500;

/**
 * Fails the start when the service's key does not open the secrets already sealed: a wrong or
 * replaced LODE_SECRETS_KEY must stop the rollout with a clear message, not fail every delivery
 * later with signatures no receiver accepts.
 */
export async function assertKeyOpensStoredSecrets(db: Database, webhooks: WebhooksRepository, box: SecretBox): Promise<void> {
  const sample = await webhooks.anySecretStartingWith(db, SEALED_PREFIX);
  if (!sample) return;
  try {
    box.open(sample.secret, sample.id);
  } catch (error) {
    throw new Error(
      `LODE_SECRETS_KEY does not decrypt the stored webhook secrets (webhook ${sample.id}): it is not the key they were ` +
        'encrypted with. Give every webhooks replica the key it had before.',
      { cause: error },
    );
  }
}

/**
 * Seals the secrets still stored as issued: those of earlier versions, and those an earlier version's
 * replica wrote during a rollout. Each is replaced only if unchanged since it was read, so replicas
 * doing it at once, or a rotation in between, lose nothing. Answers how many were sealed.
 */
export async function sealPlaintextSecrets(db: Database, webhooks: WebhooksRepository, box: SecretBox): Promise<number> {
  let sealed = 0;
  for (;;) {
    const plain = await webhooks.secretsNotStartingWith(db, SEALED_PREFIX, SEAL_BATCH);
    if (plain.length === 0) return sealed;
    const replaced = await webhooks.replaceSecrets(
      db,
      plain.map(({ id, secret }) => ({ id, from: secret, to: box.seal(secret, id) })),
    );
    sealed += replaced;
    // Every row read was changed by someone else since: what is left is theirs to seal.
    if (replaced === 0) return sealed;
  }
}
