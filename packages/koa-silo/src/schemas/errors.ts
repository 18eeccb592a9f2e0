/** Schemas of the two error bodies: the message body and the validation body. */
import type { FromSchema } from './from-schema.js';

export const httpError = {
  type: 'object',
  properties: { detail: { type: 'string' } },
  required: ['detail'],
  description: 'Every error that is not a validation error.',
} as const;
export type HttpErrorBody = FromSchema<typeof httpError>;

export const validationIssue = {
  type: 'object',
  properties: {
    loc: {
      type: 'array',
      items: { type: ['string', 'integer'] },
      description: 'Where the problem is: `body`, `path`, `query` or `header`, then the field and any index/key path.',
    },
    msg: { type: 'string', description: 'A human-readable message.' },
    type: {
      type: 'string',
      description:
        'A stable machine word: missing, string_type, bool_type, int_parsing, dict_type, list_type, ' +
        'model_attributes_type, enum, uuid_parsing, json_invalid, json_too_deep, too_long, too_short, string_too_short, ' +
        'string_pattern_mismatch, greater_than_equal, less_than_equal, value_error, or a query word of silo-query.',
    },
    ctx: {
      type: 'object',
      additionalProperties: { type: 'number' },
      description:
        'The numbers behind some types: the limit a value went over (`max_length`, `max_span`, `le`), where in a filter (`position`), how many more problems (`more`).',
    },
  },
  required: ['loc', 'msg', 'type'],
} as const;

export const validationError = {
  type: 'object',
  properties: { detail: { type: 'array', items: validationIssue, minItems: 1 } },
  required: ['detail'],
  description: 'A 422 lists every problem found, not only the first.',
} as const;
export type ValidationErrorBody = FromSchema<typeof validationError>;
