-- One database per service of the stack (run once, when the PostgreSQL volume is first initialised).
-- Each service runs its own migrations (packages/store) into its database at start-up.
CREATE DATABASE verification;
CREATE DATABASE anchor;
CREATE DATABASE transparency_log;
CREATE DATABASE revocation;
CREATE DATABASE witness;
