/** The package version, sent in `User-Agent` and on the tracer's instrumentation scope. A test keeps it equal to package.json. */
export const VERSION = "0.1.0";
