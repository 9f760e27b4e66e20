-- A small commit in one round trip: the steps CommitService and CommitRecorder take in a
-- transaction of their own (the idempotency key's claim and lookup, the project's next number, the
-- entries checked against the branch's tree, the commit written with its commit.created event, the
-- outcome saved), as one function the service calls as a statement of its own, committed with it.
--
-- Each statement below runs with a snapshot of its own, taken when it starts (a volatile function's,
-- under READ COMMITTED), as the service's statements did one per round trip: the lookup sees an outcome
-- committed before the claim was taken, and the tree read everything committed before the sequence
-- row's lock. So the claim and the lookup stay two statements, as do the lock and the tree read.
--
-- Its statements are planned once per connection and may keep a generic plan, as a prepared statement
-- does: the service calls it only for commits of at most a few entries (commits-repo.ts), for which
-- such a plan suits every size. A larger commit takes the transaction of several statements, each
-- planned for its entries.
--
-- What it writes and refuses follows the service's rules, which this restates: planEntries
-- (commit-plan.ts) for the recorded actions, stale versions and deletions of absent files;
-- commitWritesSql and MOVE_BRANCH_HEAD_SQL (commit-writes-sql.ts) and RECORD_COMMIT (commits-repo.ts)
-- for the rows and the event's parts; CommitRecorder's header for the event's fields;
-- tryClaimIdempotencyKey (libs/db) for the claim's key. A refusal raises SQLSTATE LC001 with the rule
-- broken as its message and the offending entries as JSON in its detail, so nothing is written.
--
-- It creates main on its first commit, in the sequence statement (CommitRecorder's #open says why that
-- is safe for main only). Another branch it takes only once it exists: a branch's first commit creates
-- it from main's tree, copied page by page, which it leaves to the transaction; for a branch it does
-- not find once the lock is held it raises LC001 branch_missing, and the service makes the commit by
-- the transaction instead.
CREATE OR REPLACE FUNCTION commit_small(
  -- The branch, and for main how it is created if it does not exist (null for another branch).
  p_id uuid, p_project text, p_branch text, p_created_after integer, p_lineage jsonb,
  p_message text, p_author_id text, p_author_name text, p_kind text,
  -- The entries as text lists (libs/db textList), in the request's order; uploaders indexed in the two arrays.
  p_file_ids text, p_paths text, p_actions text, p_versions text, p_version_ids text, p_sha256s text,
  p_sizes text, p_storage_keys text, p_uploaders text, p_created_ats text, p_path_keys text,
  p_uploader_ids uuid[], p_uploader_names text[],
  p_subject text, p_part_bytes integer, p_trace_context jsonb,
  -- The idempotency key (null: none), its claim's namespace and the request's fingerprint.
  p_claim_namespace text, p_key_id text, p_idem_key text, p_request_hash text,
  -- How long the commit may take from this statement's start: past it the fence may have lapsed.
  p_ms_left double precision,
  OUT o_outcome text, OUT o_sequence_num integer, OUT o_request_hash text, OUT o_response jsonb
) LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
DECLARE
  v_project uuid := p_project::uuid;
  v_branch_changes integer;
  v_file_count integer;
  v_stale jsonb;
  v_absent jsonb;
BEGIN
  IF p_idem_key IS NOT NULL THEN
    -- A racing request with the same key answers in progress.
    IF NOT pg_try_advisory_xact_lock(hashtextextended(p_claim_namespace || '.' || p_project || '.' || p_key_id || '.' || p_idem_key, 0)) THEN
      o_outcome := 'in_progress';
      RETURN;
    END IF;
    SELECT k.request_hash, k.response INTO o_request_hash, o_response
    FROM idempotency_keys k WHERE k.project_id = v_project AND k.key_id = p_key_id::uuid AND k.idem_key = p_idem_key;
    IF FOUND THEN
      o_outcome := 'replayed';
      RETURN;
    END IF;
  END IF;

  -- The project's next number (its row lock serializes the project's commits), and main if this is its first commit.
  WITH next AS (
    INSERT INTO project_sequences (project_id, last_seq) VALUES (v_project, 1)
    ON CONFLICT (project_id) DO UPDATE SET last_seq = project_sequences.last_seq + 1
    RETURNING last_seq, branch_changes
  ),
  created AS (
    INSERT INTO branches (project_id, name, created_after, lineage)
    SELECT v_project, p_branch, p_created_after, p_lineage FROM next WHERE p_lineage IS NOT NULL
    ON CONFLICT DO NOTHING
  )
  SELECT last_seq, branch_changes INTO o_sequence_num, v_branch_changes FROM next;

  -- The branch as it is once the lock is held (a statement of its own: a snapshot of its own).
  PERFORM FROM branches WHERE project_id = v_project AND name = p_branch;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'LC001', MESSAGE = 'branch_missing';
  END IF;

  -- Versions only move forward on a branch; a delete needs a live file.
  SELECT
    jsonb_agg(jsonb_build_object('fileId', e.file_id, 'version', e.version, 'currentVersion', t.version) ORDER BY e.n)
      FILTER (WHERE NOT e.deleting AND t.version IS NOT NULL AND e.version <= t.version),
    jsonb_agg(to_jsonb(e.file_id) ORDER BY e.n) FILTER (WHERE e.deleting AND (t.deleted IS NULL OR t.deleted)),
    count(*)
  INTO v_stale, v_absent, v_file_count
  FROM (
    SELECT r.file_id, r.version, r.action = 'delete' OR r.version IS NULL AS deleting, r.n
    FROM unnest(string_to_array(p_file_ids, ','), string_to_array(p_actions, ','), string_to_array(p_versions, ',', '')::int[])
      WITH ORDINALITY AS r(file_id, action, version, n)
  ) e
  LEFT JOIN LATERAL (
    SELECT version, deleted FROM tree WHERE project_id = v_project AND branch = p_branch AND file_id = e.file_id::uuid LIMIT 1
  ) t ON true;
  IF v_stale IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'LC001', MESSAGE = 'stale_version', DETAIL = v_stale::text;
  END IF;
  IF v_absent IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'LC001', MESSAGE = 'file_not_in_branch', DETAIL = v_absent::text;
  END IF;

  WITH made AS (
    INSERT INTO commits (id, project_id, sequence_num, branch, message, author_id, author_name, file_count, kind)
    VALUES (p_id, v_project, o_sequence_num, p_branch, p_message, p_author_id::uuid, p_author_name, v_file_count, p_kind)
    RETURNING created_at
  ),
  requested AS (
    SELECT r.file_id::uuid AS file_id, r.path, r.action = 'delete' OR r.version IS NULL AS deleting, r.version, r.version_id,
           r.sha256, r.size, r.storage_key, r.uploader, r.version_created_at, r.path_key, r.n
    FROM unnest(string_to_array(p_file_ids, ','), string_to_array(p_paths, E'\x1f'), string_to_array(p_actions, ','),
                string_to_array(p_versions, ',', '')::int[], string_to_array(p_version_ids, ',', '')::uuid[],
                string_to_array(p_sha256s, ',', ''), string_to_array(p_sizes, ',', '')::bigint[],
                string_to_array(p_storage_keys, E'\x1f', ''), string_to_array(p_uploaders, ',', '')::int[],
                string_to_array(p_created_ats, ',', '')::timestamptz[], string_to_array(p_path_keys, E'\x1f'))
      WITH ORDINALITY AS r(file_id, path, action, version, version_id, sha256, size, storage_key, uploader, version_created_at, path_key, n)
  ),
  -- planEntries' entries as record sends them: a delete keeps the tree's last version, sha256 and size; a
  -- version set is an add when the file is absent or deleted, else a modify.
  input AS (
    SELECT q.file_id, q.path,
           CASE WHEN q.deleting THEN 'delete' WHEN t.deleted IS NULL OR t.deleted THEN 'add' ELSE 'modify' END AS action,
           CASE WHEN NOT q.deleting THEN q.version END AS version,
           CASE WHEN NOT q.deleting THEN q.version_id END AS version_id,
           CASE WHEN NOT q.deleting THEN q.sha256 END AS sha256,
           CASE WHEN NOT q.deleting THEN coalesce(q.size, 0) END AS size,
           CASE WHEN NOT q.deleting THEN q.storage_key END AS storage_key,
           CASE WHEN NOT q.deleting THEN p_uploader_ids[q.uploader] END AS uploader_id,
           CASE WHEN NOT q.deleting THEN p_uploader_names[q.uploader] END AS uploader_name,
           CASE WHEN NOT q.deleting THEN q.version_created_at END AS version_created_at,
           CASE WHEN q.deleting THEN t.version ELSE q.version END AS tree_version,
           CASE WHEN q.deleting THEN t.sha256 ELSE coalesce(q.sha256, '') END AS tree_sha256,
           CASE WHEN q.deleting THEN t.size ELSE coalesce(q.size, 0) END AS tree_size,
           t.version IS NOT NULL AS in_tree, q.path_key, q.n
    FROM requested q
    LEFT JOIN LATERAL (
      SELECT version, sha256, size, deleted FROM tree WHERE project_id = v_project AND branch = p_branch AND file_id = q.file_id LIMIT 1
    ) t ON true
    -- In the indexes' order: the inserts below then walk each index once instead of at random.
    ORDER BY q.file_id
  ),
  entries AS (
    INSERT INTO commit_entries (commit_id, project_id, branch, file_id, path, action, version, version_id, sha256, size,
                                storage_key, uploader_id, uploader_name, version_created_at)
    SELECT p_id, v_project, p_branch, file_id, path, action, version, version_id, sha256, size, storage_key, uploader_id, uploader_name, version_created_at
    FROM input
  ),
  added AS (
    INSERT INTO tree (project_id, branch, file_id, path, version, sha256, size, commit_seq, deleted)
    SELECT v_project, p_branch, file_id, path, tree_version, tree_sha256, tree_size, o_sequence_num, action = 'delete'
    FROM input WHERE NOT in_tree
  ),
  keyed AS (
    INSERT INTO file_paths (project_id, path_key, file_id)
    SELECT v_project, path_key, file_id FROM input i
    WHERE NOT in_tree AND NOT EXISTS (SELECT FROM file_paths f WHERE f.project_id = v_project AND f.path_key = i.path_key OFFSET 0)
  ),
  changed AS (
    UPDATE tree t
    SET path = i.path, version = i.tree_version, sha256 = i.tree_sha256, size = i.tree_size, commit_seq = o_sequence_num, deleted = i.action = 'delete'
    FROM input i
    WHERE i.in_tree AND t.project_id = v_project AND t.branch = p_branch AND t.file_id = i.file_id
  ),
  head AS (
    UPDATE branches SET head_seq = o_sequence_num WHERE project_id = v_project AND name = p_branch
  ),
  event_entries AS (
    SELECT n, entry, (sum(octet_length(entry) + 1) OVER (ORDER BY n) - 1) / p_part_bytes + 1 AS part
    FROM (
      SELECT i.n,
             ('{"fileId":"' || i.file_id || '","path":' || to_json(i.path)::text || ',"action":"' || i.action ||
              '","version":' || coalesce(i.version::text, 'null') || ',"sha256":' || coalesce('"' || i.sha256 || '"', 'null') ||
              ',"size":' || coalesce(i.size::text, 'null') || '}') AS entry
      FROM input i
    ) e
  ),
  event_parts AS (
    SELECT part, count(*) OVER () AS parts, string_agg(entry, ',' ORDER BY n) AS entries FROM event_entries GROUP BY part
  )
  -- CommitRecorder's header, as JSON.stringify writes it, in its fields' order.
  INSERT INTO outbox (subject, event_id, payload, trace_context)
  SELECT p_subject, p_id::text || '.' || part,
         '{"commitId":"' || p_id || '","projectId":"' || p_project || '","branch":' || to_json(p_branch)::text ||
           ',"sequenceNum":' || o_sequence_num || ',"kind":"' || p_kind || '","branchChanges":' || v_branch_changes ||
           ',"message":' || to_json(p_message)::text || ',"author":{"userId":"' || p_author_id || '","userName":' ||
           to_json(p_author_name)::text || '},"fileCount":' || v_file_count ||
           ',"createdAt":"' || to_char(made.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","part":' || part ||
           ',"parts":' || parts || ',"entries":[' || entries || ']}',
         p_trace_context
  FROM event_parts, made
  ORDER BY part;

  IF p_idem_key IS NOT NULL THEN
    INSERT INTO idempotency_keys (project_id, key_id, idem_key, request_hash, response)
    VALUES (v_project, p_key_id::uuid, p_idem_key, p_request_hash,
            jsonb_build_object('id', p_id, 'sequenceNum', o_sequence_num, 'branch', p_branch, 'message', p_message, 'fileCount', v_file_count));
  END IF;

  -- As the service checks before its COMMIT: past the deadline nothing is committed.
  IF clock_timestamp() > statement_timestamp() + make_interval(secs => p_ms_left / 1000) THEN
    RAISE EXCEPTION USING ERRCODE = 'LC001', MESSAGE = 'timeout';
  END IF;
  o_outcome := 'committed';
END
$fn$;
