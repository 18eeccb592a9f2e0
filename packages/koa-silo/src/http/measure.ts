/**
 * Request metrics (contract §19) around Silo's middleware: each request Silo answers is counted
 * and timed by its route's template (routes.ts), method and status, never by its path; event
 * streams are counted while open; 429s by what refused them. The app's own requests (those Silo
 * passes on) are not Silo's to count.
 */
import type { Context, Middleware, Next } from 'koa';
import type { Metrics } from '../metrics/index.js';
import { TooManyRequestsError, TooManyStreamsError } from './errors.js';
import { matchRoute, type Route, templateOf } from './routes.js';

/** Templates of the event-stream routes. */
const STREAMS = new Set(['/api/v1/manage/events', '/public/{file_uuid}/events', '/{file_uuid}/events']);

/** `inner` (Silo's middleware over `routes`) with every request it answers measured. */
export function measured(metrics: Metrics, routes: Route[], consoleApi: boolean, inner: Middleware): Middleware {
  return async function siloMeasured(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    let passedOn = false;
    await inner(ctx, () => {
      passedOn = true;
      return next();
    });
    if (passedOn) return;
    const match = matchRoute(routes, ctx.method, ctx.path, consoleApi);
    const route = match === undefined || match.kind === 'unknown' ? 'unmatched' : (templateOf.get(match.pattern) ?? 'other');
    // A stream bypasses Koa's response (ctx.respond = false): its status is the one written.
    const status = ctx.respond === false ? ctx.res.statusCode : ctx.status;
    metrics.request(route, ctx.method, status, (performance.now() - started) / 1000);
    if (STREAMS.has(route) && status === 200 && ctx.respond === false && !ctx.res.writableEnded) {
      const closed = metrics.streamOpened();
      if (ctx.res.closed) closed();
      else ctx.res.once('close', closed);
    }
  };
}

/** Counts a refusal by a rate limit or a stream cap (the error a handler threw). */
export function countRefusal(metrics: Metrics | undefined, error: unknown): void {
  if (!metrics) return;
  if (error instanceof TooManyStreamsError) metrics.rateRefused('streams');
  else if (error instanceof TooManyRequestsError) metrics.rateRefused('requests');
}
