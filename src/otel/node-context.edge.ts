/** node-context.ts in the builds for Workers and the edge: no OTel manager there (see context-manager.ts). */
import type { ContextManager } from "@opentelemetry/api";

/** None: the portable manager is used. */
export function nodeContextManager(): ContextManager | undefined {
  return undefined;
}
