/**
 * Proves the served OpenAPI document: every response a test receives is checked against the
 * schema the document gives for that operation and status. An undocumented status, a body that
 * does not match, or a non-JSON content type fails the test that made the request.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// RFC 3339 in UTC, as the contract demands of timestamps.
const UTC_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface Operation {
  template: string;
  pattern: RegExp;
  params: number;
  methods: Record<string, Json>;
}

export class OpenApiChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
  private readonly operations: Operation[];
  private readonly validators = new Map<string, ValidateFunction | null>();

  constructor(readonly doc: Json) {
    this.ajv.addFormat('uuid', UUID);
    this.ajv.addFormat('date-time', (s: string) => UTC_DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)));
    const paths = doc.paths as Record<string, Record<string, Json>>;
    this.operations = Object.entries(paths)
      .map(([template, methods]) => ({
        template,
        params: (template.match(/\{/g) ?? []).length,
        pattern: new RegExp(`^${template.replace(/\/$/, '').replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
        methods,
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** Resolve every local `$ref` (the document has no recursive schemas). */
  private resolve(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.resolve(n));
    if (node === null || typeof node !== 'object') return node;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string') {
      const target = ref
        .slice(2)
        .split('/')
        .reduce<unknown>((at, key) => (at as Json)[key], this.doc);
      if (target === undefined) throw new Error(`dangling $ref ${ref}`);
      return this.resolve(target);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, this.resolve(v)]));
  }

  private schemaFor(key: string, response: Json): ValidateFunction | null {
    if (!this.validators.has(key)) {
      const schema = (response.content as Record<string, { schema: object }> | undefined)?.['application/json']?.schema;
      this.validators.set(key, schema === undefined ? null : this.ajv.compile(schema));
    }
    return this.validators.get(key)!;
  }

  /** Throws when the response is not what the document promises. */
  check(method: string, path: string, status: number, contentType: string | undefined, text: string): void {
    const where = `${method} ${path} → ${status}`;
    const wanted = (method === 'HEAD' ? 'get' : method).toLowerCase();
    // The most specific path answers (OpenAPI: concrete paths before templated ones), or none.
    const matched = this.operations.find((op) => op.pattern.test(path.split('?')[0]!));
    const op = matched?.methods[wanted] ? matched : undefined;
    let response: Json | undefined;
    let key: string;
    if (op) {
      const responses = (op.methods[wanted] as Json).responses as Json;
      const raw = responses[String(status)];
      if (raw === undefined) throw new Error(`${where}: status ${status} is not documented for ${wanted} ${op.template}`);
      response = this.resolve(raw) as Json;
      key = `${wanted} ${op.template} ${status}`;
    } else {
      // Not an operation: Silo's own 404/405 for unknown paths and methods, always the message body.
      if (status !== 404 && status !== 405 && !(status === 204 && method === 'OPTIONS')) {
        throw new Error(`${where}: no operation in the document answers this request`);
      }
      const error = { content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPError' } } } };
      response = this.resolve(status === 204 ? {} : error) as Json;
      key = `fallback ${status}`;
    }
    const validate = this.schemaFor(key, response);
    if (method === 'HEAD' || status === 204 || status === 304) {
      if (text !== '') throw new Error(`${where}: expected no body, got ${text.slice(0, 200)}`);
      return;
    }
    if (validate === null) throw new Error(`${where}: the document gives no JSON schema for this response`);
    if (contentType !== 'application/json; charset=utf-8') {
      throw new Error(`${where}: content-type ${contentType ?? '(none)'}, expected application/json; charset=utf-8`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${where}: body is not JSON: ${text.slice(0, 200)}`);
    }
    if (!validate(body)) {
      throw new Error(`${where}: body does not match the OpenAPI schema: ${this.ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`);
    }
  }
}
