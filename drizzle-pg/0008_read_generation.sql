-- How many times the tables every request reads (API keys, import suppliers, operations teams, service
-- config) have changed. Each instance keeps those rows in memory and checks this one number instead of
-- reading them again: one trivial statement a request instead of three or four. The writer bumps it in the
-- transaction that changes one of those tables (src/store/postgres/pg-read-generation.ts), and so does a
-- rebuild that replaces one. No row reads as 0; the first bump creates it. Operational state, not events;
-- the SQLite store reads its file directly.
CREATE TABLE "read_generation" (
	"id" smallint PRIMARY KEY NOT NULL CHECK ("id" = 1),
	"generation" bigint NOT NULL
);
