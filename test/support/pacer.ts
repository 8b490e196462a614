/**
 * A stand-in's stream, paced by the test: the stand-ins (openai-server.ts, openai-responses-server.ts,
 * anthropic-server.ts) wait for a turn before writing each event the SDK hands to the app, so a test decides when
 * the next one may leave the server (typically: once the app has handled the previous one). With at most one unread
 * event on the wire, what an abort, a `break` or a cancel does at a given position depends on the client alone,
 * never on how the events happened to be cut into TCP reads — so a wrapped and an unwrapped client can be compared
 * position by position. Events the SDK never hands out (Anthropic's `ping`) are written without a turn of their
 * own; everything after the last event the SDK hands out (OpenAI's usage chunk and `[DONE]`, the end of the body)
 * takes one turn. (Node 20's fetch never settles a read of a body that had fully arrived when its request was
 * aborted — the unwrapped clients hang there — so a test has to keep the end of the body from arriving early.)
 */
import type { ServerResponse } from "node:http";

export class Pacer {
  private allowed: number;
  private readonly waiting: (() => void)[] = [];
  private readonly takenWaiters: { n: number; resolve: () => void }[] = [];
  /** Turns given out so far (events the server went on to write). */
  taken = 0;

  /** `initial` events may be written before the first {@link allow}. */
  constructor(initial = 1) {
    this.allowed = initial;
  }

  /** Lets `n` more events be written. */
  allow(n = 1): void {
    this.allowed += n;
    while (this.allowed > 0 && this.waiting.length > 0) {
      this.allowed--;
      this.waiting.shift()?.();
    }
  }

  /** Resolves when the next event may be written, or when `res` closes (then the server stops writing). */
  turn(res: ServerResponse): Promise<void> {
    if (this.allowed > 0) {
      this.allowed--;
      this.took();
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const closed = () => {
        const at = this.waiting.indexOf(go);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve();
      };
      const go = () => {
        res.off("close", closed);
        this.took();
        resolve();
      };
      this.waiting.push(go);
      res.once("close", closed);
    });
  }

  /** Resolves once `n` turns have been given out. */
  tookTurns(n: number): Promise<void> {
    if (this.taken >= n) return Promise.resolve();
    return new Promise<void>((resolve) => this.takenWaiters.push({ n, resolve }));
  }

  private took(): void {
    this.taken++;
    for (const waiter of this.takenWaiters.filter((w) => w.n <= this.taken)) {
      this.takenWaiters.splice(this.takenWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}
