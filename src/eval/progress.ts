/**
 * Progress and the report: on a terminal one live line (rows done, failed, rate, ETA, retries), elsewhere a plain
 * line each tenth of the run (at most one a second) and at least every 10 s; at the end a summary table (per score: mean or true fraction,
 * ± standard error, pass@k with trials) and the link to the evaluation.
 */
import type { EvaluationResult, ScoreStats } from "./types.js";

/** Where progress goes (stderr by default). */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

const fmtSeconds = (s: number) =>
  !Number.isFinite(s)
    ? "?"
    : s < 60
      ? `${Math.ceil(s)}s`
      : `${Math.floor(s / 60)}m${String(Math.ceil(s % 60)).padStart(2, "0")}s`;

/** Reports one evaluation's progress. */
export class Progress {
  private done = 0;
  private failed = 0;
  private retries = 0;
  private readonly started = performance.now();
  private lastPrint = 0;
  private lastDecile = 0;
  private readonly live: boolean;

  constructor(
    private readonly name: string,
    private readonly total: number,
    private readonly enabled: boolean,
    private readonly stream: ProgressStream = process.stderr,
    /** Rows scored by an earlier run (resume). */
    private readonly skipped = 0,
  ) {
    this.live = Boolean(stream.isTTY);
  }

  /** The run starts: what it will do. */
  start(detail: string): void {
    if (!this.enabled) return;
    const resumed = this.skipped ? `, ${this.skipped} already scored (resumed)` : "";
    this.stream.write(`${this.name}: ${this.total} row×trial(s) to run${resumed} · ${detail}\n`);
  }

  row(status: "ok" | "failed" | "cancelled" | "resumed"): void {
    if (status === "cancelled") return;
    this.done++;
    if (status === "failed") this.failed++;
    this.print(false);
  }

  retry(): void {
    this.retries++;
  }

  private line(): string {
    const seconds = (performance.now() - this.started) / 1000;
    const rate = this.done / Math.max(seconds, 1e-3);
    const eta = rate > 0 ? (this.total - this.done) / rate : Number.POSITIVE_INFINITY;
    const parts = [
      `${this.done}/${this.total} rows`,
      `${this.failed} failed`,
      `${rate.toFixed(1)} rows/s`,
      this.done < this.total ? `ETA ${fmtSeconds(eta)}` : `${fmtSeconds(seconds)}`,
    ];
    if (this.retries) parts.push(`${this.retries} retries`);
    return `${this.name}: ${parts.join(" · ")}`;
  }

  private print(final: boolean): void {
    if (!this.enabled || this.total === 0) return;
    const now = performance.now();
    if (this.live) {
      if (!final && now - this.lastPrint < 100 && this.done < this.total) return;
      this.lastPrint = now;
      this.stream.write(`\r\x1b[2K${this.line()}${final ? "\n" : ""}`);
      return;
    }
    const decile = Math.floor((this.done * 10) / this.total);
    const due = (decile !== this.lastDecile && now - this.lastPrint >= 1000) || now - this.lastPrint >= 10_000;
    if (!final && !due && this.done < this.total) return;
    this.lastDecile = decile;
    this.lastPrint = now;
    this.stream.write(`${this.line()}\n`);
  }

  /** The run is over: the last progress line, then (with `table`) the summary table and the link. */
  finish(result: EvaluationResult, table: boolean): void {
    if (!this.enabled) return;
    if (this.live && this.total > 0) this.print(true);
    if (table) this.stream.write(formatReport(result));
  }
}

function fmtStat(stat: ScoreStats): string {
  const value = stat.kind === "boolean" ? `${(stat.mean * 100).toFixed(1)}%` : stat.mean.toPrecision(4);
  const err =
    stat.rows > 1
      ? ` ± ${stat.kind === "boolean" ? `${(stat.stderr * 100).toFixed(1)}%` : stat.stderr.toPrecision(2)}`
      : "";
  return `${value}${err}`;
}

/** The summary table and link, as the CLI and `evaluate()` print them. */
export function formatReport(result: EvaluationResult): string {
  const { counts } = result;
  const lines: string[] = [];
  const state = result.cancelled ? "cancelled" : "done";
  lines.push(
    `${result.name} (${state}): ${counts.ok + counts.resumed}/${counts.total} scored` +
      (counts.failed ? `, ${counts.failed} failed` : "") +
      (counts.cancelled ? `, ${counts.cancelled} cancelled` : "") +
      (counts.resumed ? `, ${counts.resumed} from the earlier run` : "") +
      (counts.trials > 1 ? ` (${counts.rows} rows × ${counts.trials} trials)` : ""),
  );
  const rows = result.stats.map((stat) => [
    stat.key,
    stat.kind === "boolean" ? "true fraction" : "mean",
    fmtStat(stat),
    stat.passAtK === undefined ? "" : `pass@${counts.trials} ${(stat.passAtK * 100).toFixed(1)}%`,
  ]);
  const latency = (result.summary.model_latency as { mean?: number } | undefined)?.mean;
  if (latency !== undefined) rows.push(["model_latency", "mean", `${latency.toFixed(3)} s`, ""]);
  if (rows.length) {
    const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c]!.length)));
    for (const r of rows)
      lines.push(
        `  ${r
          .map((cell, c) => (c < 3 ? cell.padEnd(widths[c]!) : cell))
          .join("  ")
          .trimEnd()}`,
      );
  }
  const errors = Object.entries(result.scorerErrors);
  for (const [scorer, message] of errors)
    lines.push(`  scorer ${scorer} threw (its score is null on those rows): ${message}`);
  if (result.url) lines.push(`  ${result.url}`);
  return `${lines.join("\n")}\n`;
}
