import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ErrorText } from './ui.js';

/**
 * A destructive action confirmed by typing a name: the button stays disabled until the text
 * equals the name exactly, so a stray click or Enter cannot delete anything.
 */
export function ConfirmByName({
  name,
  what,
  action,
  onConfirm,
  autoFocus,
}: {
  name: string;
  /** "silo", "manage key": read in the label. */
  what: string;
  /** The button's text: "Delete silo", "Revoke key". */
  action: string;
  onConfirm: () => Promise<void>;
  /** Focus the name field when shown (it appeared after a click on "Revoke…": keyboard users continue there). */
  autoFocus?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => {
    if (autoFocus) input.current?.focus();
  }, [autoFocus]);
  const id = useId();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const matches = typed === name;
  return (
    <form
      class="confirm"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!matches || busy) return;
        setBusy(true);
        setError(undefined);
        try {
          await onConfirm();
        } catch (err) {
          setError(err instanceof Error ? err.message : String(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      <label for={id}>
        Type the {what}'s name, <strong>{name}</strong>, to confirm
      </label>
      <input
        ref={input}
        id={id}
        value={typed}
        autocomplete="off"
        spellcheck={false}
        onInput={(e) => setTyped(e.currentTarget.value)}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      <button type="submit" class="danger" disabled={!matches || busy} aria-label={`${action} ${name}`}>
        {action}
      </button>
      <ErrorText id={`${id}-error`} message={error} />
    </form>
  );
}
