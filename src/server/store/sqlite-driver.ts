/**
 * Finds a SQLite driver at run time: Node's built-in `node:sqlite` (without a flag from Node 22.13 and 23.4), else the
 * `better-sqlite3` package when it is installed and built for this Node. Both are loaded with a dynamic import, so
 * nothing but the local service ever touches them, and both expose the same small synchronous API used here.
 */

export type SqlValue = string | number | bigint | null | Uint8Array;

export interface SqlStatement {
  run(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): Record<string, unknown>[];
  get(...params: SqlValue[]): Record<string, unknown> | undefined;
}

export interface SqlDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  close(): void;
}

export type SqliteDriverName = "node:sqlite" | "better-sqlite3";

export interface SqliteDriver {
  name: SqliteDriverName;
  open(file: string): SqlDatabase;
}

/** A module specifier held in a variable, so bundlers leave the import alone and it resolves at run time. */
async function load(specifier: string): Promise<Record<string, unknown>> {
  return (await import(specifier)) as Record<string, unknown>;
}

type DatabaseClass = new (file: string) => SqlDatabase;

async function nodeSqlite(): Promise<SqliteDriver> {
  const mod = await load("node:sqlite");
  const DatabaseSync = mod.DatabaseSync as DatabaseClass;
  const db = new DatabaseSync(":memory:");
  db.close();
  return { name: "node:sqlite", open: (file) => new DatabaseSync(file) };
}

async function betterSqlite(): Promise<SqliteDriver> {
  const mod = await load("better-sqlite3");
  const Database = (mod.default ?? mod) as DatabaseClass;
  // Loading the native addon happens here: a build for another Node version throws now, not later.
  const db = new Database(":memory:");
  db.close();
  return { name: "better-sqlite3", open: (file) => new Database(file) };
}

const LOADERS: Record<SqliteDriverName, () => Promise<SqliteDriver>> = {
  "node:sqlite": nodeSqlite,
  "better-sqlite3": betterSqlite,
};

/**
 * The first driver that loads, in order of preference (or only `only`), or undefined with the reason each one
 * failed.
 */
export async function findSqliteDriver(
  only?: SqliteDriverName,
): Promise<{ driver: SqliteDriver } | { driver: undefined; reasons: string[] }> {
  const reasons: string[] = [];
  for (const name of only ? [only] : (Object.keys(LOADERS) as SqliteDriverName[])) {
    try {
      return { driver: await LOADERS[name]() };
    } catch (err) {
      reasons.push(`${name}: ${(err as Error).message.split("\n")[0]}`);
    }
  }
  return { driver: undefined, reasons };
}
