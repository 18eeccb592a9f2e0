/** JSON Schemas of the console's own requests (http/console-api.ts). */
import { MANAGE_KEY_DURATIONS } from '../model/index.js';
import type { FromSchema } from './from-schema.js';
import { fileUuid } from './silo.js';

export const signInBody = {
  type: 'object',
  properties: {
    user: { type: 'string', minLength: 1, maxLength: 64 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
  required: ['user', 'password'],
} as const;
export type SignInBody = FromSchema<typeof signInBody>;

export const consoleKeyBody = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['manage', 'access'] },
    name: { type: 'string', minLength: 1, maxLength: 100 },
    duration: { type: 'string', enum: MANAGE_KEY_DURATIONS, description: 'Manage keys: default 30d. Access keys: none by default (they never expire).' },
    silos: { type: 'array', items: fileUuid, minItems: 1, maxItems: 100, uniqueItems: true, description: 'Access keys only: a scoped key.' },
  },
  required: ['type', 'name'],
} as const;
export type ConsoleKeyBody = FromSchema<typeof consoleKeyBody>;
