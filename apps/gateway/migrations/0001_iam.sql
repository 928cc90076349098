-- Identity the gateway owns: organizations, projects, agents and the
-- credentials that act for them. Tokens are stored only as SHA-256 hashes.
create table organizations (
  id text primary key,
  name text not null,
  generation integer not null default 1,
  created_at timestamptz not null default now()
);

create table projects (
  id text primary key,
  organization_id text not null references organizations (id),
  name text not null,
  created_at timestamptz not null default now()
);

create table agents (
  id text primary key,
  organization_id text not null references organizations (id),
  did text not null unique,
  created_at_ms bigint not null
);

create table credentials (
  id text primary key,
  token_hash text not null unique,
  kind text not null check (kind in ('api_key', 'm2m_token', 'bridge_session', 'agent_credential', 'agent_token')),
  organization_id text not null references organizations (id),
  project_id text references projects (id),
  workspace_id text,
  sandbox_id text,
  principal_id text not null,
  agent_id text references agents (id),
  scopes text[] not null default '{}',
  original_session boolean not null default true,
  dpop_jkt text,
  expires_at timestamptz,
  selection_expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);

-- Requests answered per organization, service and day, for GET /v1/usage.
create table request_counts (
  organization_id text not null,
  service text not null,
  day date not null,
  requests bigint not null default 0,
  client_errors bigint not null default 0,
  server_errors bigint not null default 0,
  last_request_at timestamptz not null,
  primary key (organization_id, service, day)
);
