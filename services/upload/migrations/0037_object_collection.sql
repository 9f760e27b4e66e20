-- Collection of objects nothing refers to any more (docs/storage.md, Garbage collection).
--
-- Marked: an obliteration that leaves an object without a live version (and not a Git LFS object)
-- adds it here, in its transaction. The collector, once the mark is older than its grace, locks the
-- object's blob row, checks again that no live version, open dedup reservation or Git LFS pin refers
-- to it, and only then removes the row and sets swept_at (the object no longer counts in usage); it
-- deletes the object from storage after that transaction, and the row last. A run that dies between
-- leaves swept rows, whose objects the next run deletes again (harmless).
CREATE TABLE collectable_objects (
  storage_key text PRIMARY KEY,
  project_id  uuid NOT NULL,
  sha256      text NOT NULL,
  size        bigint NOT NULL,
  marked_at   timestamptz NOT NULL DEFAULT now(),
  swept_at    timestamptz
);
CREATE INDEX collectable_objects_due ON collectable_objects (marked_at) WHERE swept_at IS NULL;
CREATE INDEX collectable_objects_swept ON collectable_objects (swept_at) WHERE swept_at IS NOT NULL;
CREATE INDEX collectable_objects_project ON collectable_objects (project_id);

-- A Git LFS object is referred to by git histories Lode cannot see: it is pinned, never collected.
-- Objects verified through LFS, and objects an LFS push found already stored, are pinned. Before
-- this, every blob Lode's own uploads stored had a version; those with none came from LFS.
ALTER TABLE blobs ADD COLUMN pinned boolean NOT NULL DEFAULT false;
UPDATE blobs b SET pinned = true WHERE NOT EXISTS (SELECT 1 FROM versions v WHERE v.project_id = b.project_id AND v.storage_key = b.storage_key);

-- Open dedup reservations by the object they name: the collector's check that none is waiting to
-- confirm against an object it is about to delete.
CREATE INDEX uploads_dedup_key ON uploads (storage_key) WHERE dedup;
