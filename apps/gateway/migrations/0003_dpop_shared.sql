-- DPoP state shared by the gateways of a deployment through PostgreSQL (RATE_LIMIT_STORE=postgres).
-- Made here, under the migration lock, so that gateways starting at once never race to create it.

-- Each proof (the key's thumbprint and the proof's jti) is claimed once: a second INSERT of the same
-- key, from any gateway, does nothing, and that is the replay. Rows past their expiry can no longer
-- pass the iat window and are deleted now and then (stores.ts).
create table if not exists dpop_proofs (
  proof_key text primary key,
  expires_at timestamptz not null
);
create index if not exists dpop_proofs_expires_at on dpop_proofs (expires_at);

-- The one secret every gateway derives its DPoP nonces from, so that a nonce one gateway issues is
-- accepted by all. The first gateway that needs it inserts it; the primary key keeps it to one row.
create table if not exists dpop_nonce_secret (
  id smallint primary key check (id = 1),
  secret bytea not null
);
