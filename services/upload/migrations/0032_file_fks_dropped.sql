-- uploads.file_id and versions.file_id no longer reference files through foreign keys. A file's row
-- is inserted by the statement that reserves its first upload (files-repo.ts reserveBatch), a
-- version is recorded only for a file whose tip it advances in the same statement (recordVersions),
-- and files are never deleted, so neither can name a file that is not there. Each key's check was
-- one lookup of the file per reservation and per version: about a twentieth of the time Postgres
-- spends on a push of small files. Whatever deletes files one day must delete their reservations
-- and versions in the same transaction.
ALTER TABLE uploads DROP CONSTRAINT uploads_file_id_fkey;
ALTER TABLE versions DROP CONSTRAINT versions_file_id_fkey;
