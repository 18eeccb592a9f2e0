import { useState } from 'preact/hooks';

/**
 * Copies text to the clipboard. The async Clipboard API needs a secure context (https or
 * localhost); over plain http elsewhere, the text is put in a hidden field and copied the old way.
 */
async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <span class="copy">
      <button type="button" aria-label={label} onClick={async () => setState((await copy(text)) ? 'copied' : 'failed')}>
        Copy
      </button>
      <span role="status" class="copy-status">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Could not copy: select the text and copy it by hand.' : ''}
      </span>
    </span>
  );
}
