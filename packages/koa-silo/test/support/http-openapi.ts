/**
 * Proves the served OpenAPI document: every response a test receives is checked against the
 * schema the document gives for that operation and status. An undocumented status, a body that
 * does not match, a non-JSON content type, a documented integer header that is not one, a 405
 * whose Allow differs from the path's documented methods, or any answer but 404 to a path the
 * document does not have, fails the test that made the request. HEAD and OPTIONS are operations
 * of their own in the document, checked as any other.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;

// RFC 4122 (format uuid): hexadecimal digits of either case (the server answers in lower case).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
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
        pattern: new RegExp(`^${template.replace(/\/$/, '').replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '([^/]+)')}/?$`),
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

  /**
   * The other half of a validating proxy: a request the server accepted (any answer below 400)
   * must be one the document allows, or a client generated from the document could not make it
   * and a validating proxy would refuse it. Its path parameters, the documented query and header
   * parameters it sends (integers read as the server reads them: canonical decimal), and its body
   * by Content-Type (a type not listed falls to `*\/*`, when listed). Throws when not.
   */
  checkRequest(method: string, path: string, status: number, headers: Record<string, string | undefined>, body: string | undefined): void {
    if (status >= 400) return;
    const where = `${method} ${path} → ${status}`;
    const [pathname, search = ''] = path.split('?') as [string, string?];
    const matched = this.operations.find((op) => op.pattern.test(pathname));
    const op = matched?.methods[method.toLowerCase()] as Json | undefined;
    if (!matched || !op) throw new Error(`${where}: accepted, but the document has no such operation`);
    const item = matched.methods as Json;
    const params = [...((item.parameters ?? []) as Json[]), ...((op.parameters ?? []) as Json[])].map((p) => this.resolve(p) as Json);
    const values = matched.pattern.exec(pathname)!.slice(1).map(decodeURIComponent);
    const names = [...matched.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const query = new URLSearchParams(search);
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    for (const param of params) {
      const name = String(param.name);
      const raw =
        param.in === 'path' ? values[names.indexOf(name)] : param.in === 'query' ? (query.getAll(name).at(-1) ?? undefined) : param.in === 'header' ? lower[name.toLowerCase()] : undefined;
      if (raw === undefined || (param.in === 'header' && raw === '')) {
        if (param.required) throw new Error(`${where}: accepted without the required ${param.in} parameter ${name}`);
        continue;
      }
      const schema = param.schema as Json;
      const value = schema.type === 'integer' && /^(0|-?[1-9][0-9]*)$/.test(raw) ? Number(raw) : raw;
      const validate = this.compiled(`param ${matched.template} ${param.in} ${name}`, schema);
      if (!validate(value)) throw new Error(`${where}: accepted ${param.in} parameter ${name}=${raw}, which the document refuses: ${this.ajv.errorsText(validate.errors)}`);
    }
    const requestBody = op.requestBody === undefined ? undefined : (this.resolve(op.requestBody) as Json);
    if (!requestBody) return;
    const content = requestBody.content as Record<string, { schema: object }>;
    const type = (lower['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const media = content[type] ? type : content['*/*'] ? '*/*' : undefined;
    if (!media) throw new Error(`${where}: accepted Content-Type "${type}", which the document does not list`);
    if (body === undefined || body === '') {
      if (requestBody.required) throw new Error(`${where}: accepted without the required body`);
      return;
    }
    let parsed: unknown;
    try {
      // JSON text may open with a byte order mark, which a parser may ignore (RFC 8259 §8.1), as the server does.
      parsed = JSON.parse(body.replace(/^\uFEFF/, ''));
    } catch {
      throw new Error(`${where}: accepted a body that is not JSON`);
    }
    const validate = this.compiled(`body ${matched.template} ${method} ${media}`, content[media]!.schema);
    if (!validate(parsed)) throw new Error(`${where}: accepted a ${media} body the document refuses: ${this.ajv.errorsText(validate.errors)}\n${body.slice(0, 300)}`);
  }

  private compiled(key: string, schema: object): ValidateFunction {
    if (!this.validators.has(key)) this.validators.set(key, this.ajv.compile(this.resolve(schema) as object));
    return this.validators.get(key)!;
  }

  /** Throws when the response is not what the document promises. */
  check(method: string, path: string, status: number, contentType: string | undefined, text: string, headers: Record<string, unknown> = {}): void {
    const where = `${method} ${path} → ${status}`;
    const wanted = method.toLowerCase();
    // The most specific path answers (OpenAPI: concrete paths before templated ones), or none.
    const matched = this.operations.find((op) => op.pattern.test(path.split('?')[0]!));
    let response: Json | undefined;
    let key: string;
    if (matched?.methods[wanted]) {
      const responses = (matched.methods[wanted] as Json).responses as Json;
      const raw = responses[String(status)];
      if (raw === undefined) throw new Error(`${where}: status ${status} is not documented for ${wanted} ${matched.template}`);
      response = this.resolve(raw) as Json;
      key = `${wanted} ${matched.template} ${status}`;
      this.checkHeaders(where, response, headers);
    } else if (matched) {
      // A documented path, another method: the 405 its description promises, with its methods in Allow.
      if (status !== 405) throw new Error(`${where}: ${method} is not an operation of ${matched.template}, so the answer must be 405`);
      const allow = Object.keys(matched.methods)
        .filter((m) => OPERATION_METHODS.has(m))
        .map((m) => m.toUpperCase());
      const sent = String(headers.allow ?? '').split(', ').filter(Boolean);
      if (sent.sort().join() !== allow.sort().join()) throw new Error(`${where}: Allow is "${String(headers.allow)}", the document says ${allow.join(', ')}`);
      response = this.resolve(HTTP_ERROR) as Json;
      key = 'method not allowed';
    } else {
      // Not a documented path: Silo's own 404 for an unknown path under its addresses.
      if (status !== 404) throw new Error(`${where}: no path of the document matches, so the answer must be 404`);
      response = this.resolve(HTTP_ERROR) as Json;
      key = 'unknown path';
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

  /**
   * Headers the response documents with a schema: when sent, they must match it (integers as
   * integers). Silo's own headers, when sent, must be documented for this status (a client
   * generated from the document reads only those).
   */
  private checkHeaders(where: string, response: Json, headers: Record<string, unknown>): void {
    const documented = new Set(Object.keys((response.headers ?? {}) as Json).map((name) => name.toLowerCase()));
    for (const name of SILO_HEADERS) {
      if (headers[name] !== undefined && !documented.has(name)) throw new Error(`${where}: sends ${name}, which the document does not declare for this answer`);
    }
    for (const [name, raw] of Object.entries((response.headers ?? {}) as Json)) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) continue;
      const schema = (raw as Json).schema as Json | undefined;
      if (schema?.type === 'integer' && !/^(0|-?[1-9][0-9]*)$/.test(String(value))) {
        throw new Error(`${where}: header ${name} is "${String(value)}", the document says an integer`);
      }
      if (schema && 'const' in schema && value !== schema.const) throw new Error(`${where}: header ${name} is "${String(value)}", the document says ${String(schema.const)}`);
    }
  }
}

/** Headers Silo sets itself (not Koa's or Node's). */
const SILO_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'etag', 'x-total-count', 'preference-applied', 'location'];

const OPERATION_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const HTTP_ERROR = { content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPError' } } } };
