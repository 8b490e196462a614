/** The local service's defaults, apart from its code so the bin's help and `tracewire eval` can name them cheaply. */

/** Port of `tracewire dev` on 127.0.0.1. */
export const DEFAULT_PORT = 4319;
/** Folder of its SQLite database. */
export const DEFAULT_DATA_DIR = ".tracewire";
