-- The `market` database holds everything the pipeline stores. schema_migrations is created by the
-- runner itself; this first migration only makes sure the database exists on a fresh server.
CREATE DATABASE IF NOT EXISTS market;
