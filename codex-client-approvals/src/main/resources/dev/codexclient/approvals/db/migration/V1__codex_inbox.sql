-- The entries of the approvals inbox. The columns other than body are what the inbox filters, orders and matches
-- by; body is the whole entry as JSON (EntryJson), history included. version counts an entry's changes: an entry is
-- replaced only at the version it was read at. changed_seq orders the changes for the instances that poll for them.
CREATE TABLE codex_inbox_entry (
    id           VARCHAR(64)   NOT NULL PRIMARY KEY,
    request_key  VARCHAR(1024) NOT NULL,
    kind         VARCHAR(32)   NOT NULL,
    state        VARCHAR(16)   NOT NULL,
    thread_id    VARCHAR(256)  NOT NULL,
    requested_at BIGINT        NOT NULL,
    expires_at   BIGINT        NOT NULL,
    version      BIGINT        NOT NULL,
    changed_seq  BIGINT        NOT NULL,
    body         ${text_type}  NOT NULL
);

CREATE INDEX codex_inbox_entry_state ON codex_inbox_entry (state, requested_at);
CREATE INDEX codex_inbox_entry_key ON codex_inbox_entry (request_key);
CREATE INDEX codex_inbox_entry_changed ON codex_inbox_entry (changed_seq);
CREATE INDEX codex_inbox_entry_expiry ON codex_inbox_entry (state, expires_at);
CREATE INDEX codex_inbox_entry_thread ON codex_inbox_entry (thread_id, requested_at);

CREATE SEQUENCE codex_inbox_change_seq;
