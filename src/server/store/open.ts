/** Opens the store the local service asked for: SQLite in the data folder when a driver loads, else memory. */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError } from "../../errors.js";
import { MemoryStore } from "./memory-store.js";
import { findSqliteDriver, type SqlDatabase, type SqliteDriverName } from "./sqlite-driver.js";
import { SqliteStore } from "./sqlite-store.js";
import type { Store } from "./types.js";

export interface StoreOptions {
  storage: "sqlite" | "memory";
  /** Folder of the SQLite file (`traces.db`). */
  dataDir: string;
  /** Use only this driver (tests); by default the first that loads. */
  sqliteDriver?: SqliteDriverName;
  warn(message: string): void;
}

export const DB_FILE = "traces.db";

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.storage === "memory") return new MemoryStore();
  const found = await findSqliteDriver(options.sqliteDriver);
  if (!found.driver) {
    options.warn(
      `No SQLite driver could be loaded (${found.reasons.join("; ")}). Keeping traces in memory: they are lost when ` +
        "the server stops. Use Node >= 22.13 (built-in node:sqlite) or `npm install better-sqlite3` to keep them.",
    );
    return new MemoryStore();
  }
  const dir = resolve(options.dataDir);
  const file = join(dir, DB_FILE);
  let db: SqlDatabase | undefined;
  try {
    mkdirSync(dir, { recursive: true });
    db = found.driver.open(file);
    return new SqliteStore(db, `${file} (SQLite via ${found.driver.name})`, { warn: options.warn });
  } catch (err) {
    try {
      db?.close();
    } catch {}
    // A file where the folder should be, a folder it may not write, a traces.db that is not a database, …
    throw new ConfigError(
      "dataDir",
      JSON.stringify(options.dataDir),
      `a folder where tracewire dev can keep ${DB_FILE} (${(err as Error).message})`,
    );
  }
}
