-- The Minds service's tables (schema "minds", set as search_path by @gateway-minds/db).
-- Every row that belongs to a tenant carries organization_id and project_id, and every
-- query filters on both.

-- Owned Minds: desired state (written by the API), observed state (written by the
-- controller from host reports) and the derived status. The mapping is documented in
-- src/controller/state.ts and README.md.
CREATE TABLE minds (
  mind_id uuid PRIMARY KEY,
  organization_id text NOT NULL,
  project_id text NOT NULL,
  workspace_id text,
  sandbox_id text,
  created_by text NOT NULL,
  name text NOT NULL,
  region text NOT NULL,
  plan text NOT NULL,
  profile_id text NOT NULL,
  cpus integer NOT NULL CHECK (cpus >= 1),
  memory_mb integer NOT NULL CHECK (memory_mb >= 1),
  volume_size_gb integer NOT NULL CHECK (volume_size_gb >= 1),
  services jsonb NOT NULL,
  volume_id uuid NOT NULL,
  base_url text NOT NULL,
  desired_state text NOT NULL CHECK (desired_state IN ('running', 'stopped', 'deleted')),
  desired_generation bigint NOT NULL CHECK (desired_generation >= 1),
  observed_state text NOT NULL CHECK (observed_state IN ('pending', 'running', 'stopped', 'deleted', 'failed', 'uncertain')),
  observed_generation bigint NOT NULL DEFAULT 0 CHECK (observed_generation >= 0),
  observed_capacity jsonb,
  status text NOT NULL CHECK (status IN ('ready', 'provisioning', 'stopped', 'deleted', 'failed', 'uncertain')),
  capacity_applied boolean NOT NULL DEFAULT false,
  operation_id uuid,
  error_code text,
  stop_reason text,
  wake_reason text,
  last_activity_at timestamptz,
  -- Controller bookkeeping.
  host_requested_generation bigint NOT NULL DEFAULT 0, -- the generation last handed to the host (never re-sent)
  host_reported_at timestamptz,                        -- when the host last answered for this Mind
  volume_provisioned_at timestamptz,                   -- host-confirmed creation of the retained volume
  telemetry_through timestamptz,                       -- host CPU telemetry recorded up to here
  telemetry_cpu_total double precision NOT NULL DEFAULT 0,
  lease_owner text,                                    -- the controller replica working on the Mind
  lease_until timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX minds_by_tenant ON minds (organization_id, project_id, created_at, mind_id);

-- Host-confirmed running intervals: the usage ledger. At most one open interval per Mind.
CREATE TABLE mind_running_intervals (
  mind_id uuid NOT NULL REFERENCES minds (mind_id),
  organization_id text NOT NULL,
  project_id text NOT NULL,
  generation bigint NOT NULL,
  cpus integer NOT NULL,
  memory_mb integer NOT NULL,
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  PRIMARY KEY (mind_id, started_at),
  CHECK (ended_at IS NULL OR ended_at >= started_at)
);
CREATE UNIQUE INDEX mind_running_intervals_one_open ON mind_running_intervals (mind_id) WHERE ended_at IS NULL;
CREATE INDEX mind_running_intervals_by_tenant ON mind_running_intervals (organization_id, project_id, started_at);

-- Host CPU telemetry, as reported periods.
CREATE TABLE mind_telemetry (
  mind_id uuid NOT NULL REFERENCES minds (mind_id),
  organization_id text NOT NULL,
  project_id text NOT NULL,
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  cpu_seconds double precision NOT NULL CHECK (cpu_seconds >= 0),
  PRIMARY KEY (mind_id, period_end),
  CHECK (period_end >= period_start)
);

-- Durable Idempotency-Key records of createMind, resumeMind and stopMind. The row is
-- inserted first, in the transaction that does the work: a concurrent request with the
-- same key waits on the primary key and then replays the committed response.
CREATE TABLE idempotency_records (
  organization_id text NOT NULL,
  project_id text NOT NULL,
  principal text NOT NULL,
  idempotency_key uuid NOT NULL,
  operation text NOT NULL,
  fingerprint text NOT NULL,
  response_status integer,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, project_id, principal, idempotency_key)
);

-- operationId records of the owner-management writes, same pattern.
CREATE TABLE owner_operations (
  organization_id text NOT NULL,
  project_id text NOT NULL,
  principal text NOT NULL,
  operation_id uuid NOT NULL,
  operation text NOT NULL,
  fingerprint text NOT NULL,
  response_status integer,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, project_id, principal, operation_id)
);

CREATE TABLE agent_groups (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  project_id text NOT NULL, -- the project selected when the group was created (groups are organization-wide)
  owner_id text NOT NULL,
  organization_generation bigint NOT NULL,
  name text NOT NULL,
  version bigint NOT NULL DEFAULT 1,
  revoked_at bigint,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_groups_by_owner ON agent_groups (organization_id, owner_id, id);

CREATE TABLE agent_group_members (
  group_id text NOT NULL REFERENCES agent_groups (id),
  agent_id text NOT NULL,
  organization_id text NOT NULL,
  agent_did text NOT NULL,
  agent_created_at bigint NOT NULL,
  version bigint NOT NULL CHECK (version >= 1),
  revoked_at bigint,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, agent_id)
);
CREATE INDEX agent_group_members_active_by_agent ON agent_group_members (agent_id) WHERE revoked_at IS NULL;

-- One attachment record per (Mind, subject); every write bumps version.
CREATE TABLE mind_attachments (
  id text PRIMARY KEY,
  mind_id uuid NOT NULL REFERENCES minds (mind_id),
  organization_id text NOT NULL,
  project_id text NOT NULL,
  subject_kind text NOT NULL CHECK (subject_kind IN ('agent', 'group')),
  subject_id text NOT NULL,
  permissions jsonb NOT NULL,
  expires_at bigint NOT NULL,
  revoked_at bigint,
  version bigint NOT NULL CHECK (version >= 1),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (mind_id, subject_kind, subject_id)
);

-- Episodic memory. namespace: 'owner' (the Mind owner's memory), 'agent:<agent id>'
-- (an agent's private memory in the Mind) or 'group:<agp id>' (a group's shared namespace).
CREATE TABLE memory_events (
  storage_id uuid PRIMARY KEY,
  mind_id uuid NOT NULL REFERENCES minds (mind_id),
  organization_id text NOT NULL,
  project_id text NOT NULL,
  namespace text NOT NULL,
  event_id uuid NOT NULL,
  content text NOT NULL,
  event_timestamp text NOT NULL,
  event_type text NOT NULL,
  summary text,
  tags jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- Ranked full-text search: summary weighs most, then content, then tags.
  search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', coalesce(summary, '')), 'A')
    || setweight(to_tsvector('english', content), 'B')
    || setweight(jsonb_to_tsvector('english', tags, '["string"]'), 'C')
  ) STORED
);
CREATE INDEX memory_events_search ON memory_events USING gin (search);
CREATE INDEX memory_events_by_namespace ON memory_events (mind_id, namespace, created_at);

-- The simulated host's own state (src/controller/simulated-host.ts): kept in the database
-- so that every replica and a restarted process see the same simulated instances.
CREATE TABLE simulated_host_instances (
  mind_id uuid PRIMARY KEY,
  generation bigint NOT NULL,             -- the generation of the last action asked of the host
  target_state text NOT NULL CHECK (target_state IN ('running', 'stopped')),
  from_state text NOT NULL,               -- the host's state when that action was asked
  from_generation bigint NOT NULL,
  requested_at timestamptz NOT NULL,
  due_at timestamptz NOT NULL,            -- when the action completes
  cpus integer NOT NULL,
  memory_mb integer NOT NULL,
  volume_size_gb integer NOT NULL,
  profile_id text NOT NULL,
  running_since timestamptz,              -- the run in progress before the action (if from_state = running)
  stopped_at timestamptz,                 -- the last completed stop before the action
  volume_created_at timestamptz,
  cpu_seconds_before double precision NOT NULL DEFAULT 0, -- CPU of completed runs
  fail_generation bigint                  -- this generation's action fails (failure injection)
);
