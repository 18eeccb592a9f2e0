/**
 * Compiled in the scratch app against the packed packages (and in the repository's own type
 * check): the public types an embedder reaches for resolve from the tarballs alone and say what
 * the documentation says. Run after compiling, it also imports all three packages.
 */
import type { Middleware } from 'koa';
import { createSilo, type Silo } from 'koa-silo';
import { compile, ErrorType, query, SiloQueryError, type JsonValue, type SiloQueryErrorItem } from 'silo-query';
import { SqliteStore, startServer, type RunningServer } from 'silo-server';

// Query results are JSON values, not `unknown`.
const result: JsonValue = query([{ name: 'Ada' }], 'idx=0&path=name');
const compiled: JsonValue = compile({ path: 'name' })({ name: 'Linus' });

// ErrorType is a type as well as the object of words; an error item's `type` is one of the words.
const word: ErrorType = ErrorType.intParsing;
// @ts-expect-error a word silo-query never uses is not an ErrorType
const notAWord: ErrorType = 'no_such_word';
function isIdxError(item: SiloQueryErrorItem): boolean {
  // @ts-expect-error a misspelt word cannot match: `type` is a union of the words, not a string
  if (item.type === 'int_parse') return true;
  return item.type === ErrorType.intParsing;
}
let caught: SiloQueryErrorItem[] = [];
try {
  query([], 'idx=-1');
} catch (e) {
  if (e instanceof SiloQueryError) caught = e.detail;
}

// koa-silo's and silo-server's declarations need @types/koa, @types/node and @types/better-sqlite3.
const silo: Silo = createSilo();
const middleware: Middleware = silo.middleware();
await silo.close();
const running: ((config: never) => Promise<RunningServer>) = startServer;

console.log(
  JSON.stringify(result),
  JSON.stringify(compiled),
  word,
  notAWord,
  caught.some(isIdxError),
  typeof middleware,
  typeof running,
  typeof SqliteStore,
);
