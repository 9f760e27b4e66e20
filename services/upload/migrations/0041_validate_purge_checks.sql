-- The purge checks 0039 added NOT VALID, validated apart from that migration's exclusive lock: each
-- migration is one transaction, and VALIDATE's scan of versions holds a lock writes pass.
ALTER TABLE versions VALIDATE CONSTRAINT versions_purge_reason_check;
ALTER TABLE versions VALIDATE CONSTRAINT versions_purge_recorded;
