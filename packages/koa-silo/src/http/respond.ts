/** Writing JSON responses: always `application/json; charset=utf-8`. */
import type { Context } from 'koa';

export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Headers every answer of Silo's carries, whatever writes it (JSON, an error, an event stream, an
 * empty answer). Set once, when Silo takes a request (middleware.ts, jsonNotFound), so that no
 * handler can forget them. `nosniff` (contract §17): a silo holds an account's text, served as
 * JSON to anyone with its address; a browser must never sniff it into HTML or script.
 */
export function setAnswerHeaders(ctx: Context): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
}

/** Send `value` serialized with JSON.stringify. */
export function sendJson(ctx: Context, status: number, value: unknown): void {
  sendJsonText(ctx, status, JSON.stringify(value));
}

/** Send text that already is JSON (stored silo text, or text built around it) without touching it. */
export function sendJsonText(ctx: Context, status: number, text: string): void {
  ctx.status = status;
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = text;
}

/** Send bytes that already are JSON (an encoded body shared between responses: never modify it). */
export function sendJsonBytes(ctx: Context, status: number, bytes: Buffer): void {
  ctx.status = status;
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = bytes;
}

/** 304 or 204: no body, no content type. */
export function sendEmpty(ctx: Context, status: 204 | 304): void {
  ctx.status = status;
  ctx.body = null;
  ctx.remove('Content-Type');
}
