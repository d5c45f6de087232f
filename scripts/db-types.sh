#!/usr/bin/env bash
# Regenerates src/db/schema.ts (the Kysely table types) from the migrations.
# Needs a PostgreSQL server: DATABASE_URL points at it; a scratch database is made and dropped there.
set -euo pipefail
cd "$(dirname "$0")/.."
server=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
scratch="hearth_types_$$"
base=${server%/*}
psql "$server" -qc "create database $scratch"
trap 'psql "$server" -qc "drop database if exists $scratch"' EXIT
node bin/hearth.mjs migrate --database-url "$base/$scratch" >/dev/null
npx kysely-codegen --dialect postgres --url "$base/$scratch" --numeric-parser number --date-parser string \
  --exclude-pattern 'hearth_migrations*' --out-file src/db/schema.ts --log-level error
# Our type parsers (src/db/type-parsers.ts) read int8 as number, and json is written as JSON text:
# a JS array handed to pg would become a PostgreSQL array literal.
sed -i \
  -e 's/^export type Int8 = .*/export type Int8 = ColumnType<number, number, number>;/' \
  -e 's/^export type Json = JsonValue;/export type Json = ColumnType<JsonValue, string, string>;/' \
  src/db/schema.ts
