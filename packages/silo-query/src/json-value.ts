/**
 * `JsonValue`: what a query returns. A query only selects within its data (which is JSON, as
 * `JSON.parse` or `parseJson` gives it) or converts a selection to a JSON scalar, so its result
 * is one of these. Two members go beyond `JSON.parse`: a `JsonNumber`, where `parseJson` kept a
 * number a double would change, and a `bigint`, what `output=int` gives beyond the safe integer
 * range. `toJSON` writes every member as JSON text.
 */
import type { JsonNumber } from './json-number.js';

export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | JsonNumber
  | JsonValue[]
  | { [key: string]: JsonValue };
