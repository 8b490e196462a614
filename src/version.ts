/** The package version, sent in `User-Agent` and on the tracer's instrumentation scope. A test keeps it equal to package.json. */
export const VERSION = "0.1.0";

/** Instrumentation-scope name of every span tracewire creates; the processor routes these to the calls route. */
export const TRACER_NAME = "tracewire";
