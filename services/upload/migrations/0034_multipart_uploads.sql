-- Multipart uploads: a reservation whose bytes go up in parts has the store's upload id and the
-- parts it was promised (part size and each part's MD5), so that a client resuming it gets URLs for
-- the parts the store lacks, and confirm can check the store's parts against the promise before
-- joining them. The row goes with its reservation (confirmed or collected); the collector reads the
-- upload id first, to abort what the store still holds.
CREATE TABLE multipart_uploads (
  reservation_id uuid PRIMARY KEY REFERENCES uploads (id) ON DELETE CASCADE,
  upload_id      text NOT NULL,
  part_size      bigint NOT NULL,
  part_md5s      text[] NOT NULL
);
CREATE INDEX multipart_uploads_upload_id ON multipart_uploads (upload_id);
