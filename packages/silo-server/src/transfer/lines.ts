/**
 * Lines of text in and out of streams, with backpressure both ways: reading pulls one chunk at a
 * time (the stream's own async iterator, which pauses the source until the next pull), and
 * writing waits for 'drain' whenever the destination's buffer is full. So an export to a slow
 * disk or pipe, or an import from a fast one, holds at most a few chunks and one line in memory.
 */
import type { Readable, Writable } from 'node:stream';

/**
 * The lines of `input` (UTF-8), without their line ends (`\n` or `\r\n`); a last line without one
 * too. A line longer than `maxChars` is an error naming it, before it is held whole (a 600 MB line
 * took 731 MB and ended in V8's "invalid string length").
 */
export async function* readLines(input: Readable, maxChars = Number.POSITIVE_INFINITY): AsyncGenerator<string> {
  input.setEncoding('utf8');
  // Parts of the line being read: joined once its end comes, so a long line costs one copy.
  let parts: string[] = [];
  let length = 0;
  let number = 0;
  const tooLong = () => new Error(`line ${number + 1} is longer than ${maxChars} characters, more than any record of an export can be`);
  for await (const chunk of input as AsyncIterable<string>) {
    let from = 0;
    for (let end = chunk.indexOf('\n'); end >= 0; end = chunk.indexOf('\n', from)) {
      if (length + end - from > maxChars) throw tooLong();
      parts.push(chunk.slice(from, end));
      const line = parts.join('');
      parts = [];
      length = 0;
      number++;
      yield line.endsWith('\r') ? line.slice(0, -1) : line;
      from = end + 1;
    }
    if (from < chunk.length) {
      length += chunk.length - from;
      if (length > maxChars) throw tooLong();
      parts.push(chunk.slice(from));
    }
  }
  if (parts.length > 0) yield parts.join('');
}

/** Resolves on 'drain', rejects on 'error', leaving no listener behind either way. */
function drained(output: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      output.off('drain', onDrain);
      output.off('error', done);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    output.on('drain', onDrain);
    output.on('error', done);
  });
}

/** Writes every line of `lines` to `output`, each followed by `\n`, waiting whenever `output` is full. */
export async function writeLines(lines: AsyncIterable<string>, output: Writable): Promise<void> {
  let failed: Error | undefined;
  const onError = (error: Error) => (failed ??= error);
  output.on('error', onError);
  try {
    for await (const line of lines) {
      if (failed) throw failed;
      if (!output.write(`${line}\n`)) await drained(output);
    }
    if (failed) throw failed;
  } finally {
    output.off('error', onError);
  }
}
