#!/bin/sh
# Consecutive crashes of the database server under load (docs/operations.md "Database outages"): a temporary
# PostgreSQL cluster (initdb, never the shared server), two `import-ledger serve` processes on it, keyed
# writes; each run stops the server with `pg_ctl stop -m immediate`, starts it again 2 s later, and checks
# that nothing acknowledged was lost or stored twice. Prints, per run, the writes acknowledged, the unknown
# outcomes (writes answered 503, sent again with their Idempotency-Key) and the seconds to recovery.
#   sh bench/db-crash-runs.sh [runs, default 10] [report.json]
set -e
cd "$(dirname "$0")/.."
LEDGER_DB_CRASH_RUNS="${1:-10}" LEDGER_DB_CRASH_REPORT="${2:-}" npx vitest run test/store/postgres/server-restart.test.ts --project sqlite
