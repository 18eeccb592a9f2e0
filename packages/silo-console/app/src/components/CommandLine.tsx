import { Fragment } from 'preact';
import { CopyButton } from './CopyButton.js';

/**
 * A line to copy (a URL, a curl command) with its copy button. Its words may wrap between them on
 * a narrow screen, a URL anywhere if it must, but never inside a word such as the key header.
 */
export function CommandLine({ words, label }: { words: string[]; label: string }) {
  const text = words.join(' ');
  return (
    <div class="command-row">
      <code class="command" aria-label={label}>
        {words.map((w, i) => (
          // The space between words is outside them: there the line may break.
          <Fragment key={i}>
            {i > 0 ? ' ' : null}
            <span class={/^'?https?:/.test(w) ? 'word url' : 'word'}>{w}</span>
          </Fragment>
        ))}
      </code>
      <CopyButton text={text} label={`Copy ${label.charAt(0).toLowerCase()}${label.slice(1)}`} />
    </div>
  );
}
