/**
 * The TypeScript blocks of the root README's "Embedding" section, read from the README itself so
 * that the packaging test runs exactly what a reader copies. Each `console.log` line ends with a
 * comment saying what it prints; those comments are the example's expected output.
 */
import { readFileSync } from 'node:fs';

export interface ReadmeExample {
  /** A file name for the example in the scratch app: `embedding-1.ts`, `embedding-2.ts`, ... */
  file: string;
  code: string;
  /** What the example prints, one entry per line, from its `console.log(...); // <output>` comments. */
  expectedOutput: string[];
}

const README = new URL('../../README.md', import.meta.url);

export function readmeEmbeddingExamples(): ReadmeExample[] {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf('\n## Embedding\n');
  if (start < 0) throw new Error('README.md has no "## Embedding" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  if (blocks.length === 0) throw new Error('the "Embedding" section of README.md has no ```ts block');
  return blocks.map((code, i) => ({ file: `embedding-${i + 1}.ts`, code, expectedOutput: printed(code) }));
}

function printed(code: string): string[] {
  return code
    .split('\n')
    .filter((line) => line.includes('console.log('))
    .map((line) => {
      const comment = /\/\/ (.*)$/.exec(line);
      if (!comment?.[1]) throw new Error(`a README example's console.log has no comment saying what it prints: ${line.trim()}`);
      return comment[1].trim();
    });
}
