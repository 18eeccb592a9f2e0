/**
 * The model: the domain types and constants every layer shares (silos, versions, keys, plans,
 * hosts, events, webhooks, console users), the clock and the typed errors. The bottom of the
 * house: it imports nothing, and loads neither Keyv, ajv nor Koa (`koa-silo/model`).
 */
export * from './silo.js';
export * from './keys.js';
export * from './plans.js';
export * from './hosts.js';
export * from './clock.js';
export * from './events.js';
export * from './webhooks.js';
export * from './console.js';
export * from './audit.js';
export * from './errors.js';
