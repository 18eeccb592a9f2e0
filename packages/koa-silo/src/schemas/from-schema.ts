/**
 * A small FromSchema: the TypeScript type of a value that validates against an `as const` JSON
 * Schema. It covers the keywords Silo's schemas use (type, type lists, enum, const, properties,
 * required, items, anyOf/oneOf) so the schemas stay the one source of the request and response types.
 */

type TypeName = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array';

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ObjectOf<S> = S extends { properties: infer P }
  ? Simplify<
      {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromSchema<P[K]>;
      } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromSchema<P[K]>;
      }
    >
  : Record<string, unknown>;

type RequiredKeys<S> = S extends { required: readonly (infer R)[] } ? R : never;

type OfType<T extends TypeName, S> = T extends 'string'
  ? S extends { enum: readonly (infer E)[] }
    ? E
    : string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'object'
          ? ObjectOf<S>
          : T extends 'array'
            ? S extends { items: infer I }
              ? FromSchema<I>[]
              : unknown[]
            : never;

export type FromSchema<S> = S extends { const: infer C }
  ? C
  : S extends { anyOf: readonly (infer A)[] }
    ? FromSchema<A>
    : S extends { oneOf: readonly (infer A)[] }
      ? FromSchema<A>
      : S extends { type: infer T }
        ? T extends TypeName
          ? OfType<T, S>
          : T extends readonly (infer U)[]
            ? U extends TypeName
              ? OfType<U, S>
              : never
            : never
        : unknown;
