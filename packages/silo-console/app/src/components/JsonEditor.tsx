import { useEffect, useRef } from 'preact/hooks';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { EditorView, drawSelection, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { linter, lintGutter } from '@codemirror/lint';

export interface JsonEditorProps {
  /**
   * The text the editor starts with. The editor owns its text from then on (a controlled editor
   * whose effects run a keystroke late fights the typist); give it a new Preact `key` to reset it.
   */
  value: string;
  onChange?: (text: string) => void;
  readOnly?: boolean;
  /** The editor's accessible name. */
  label: string;
  /** Id of the element holding the error in words, read out with the editor. */
  describedBy?: string | undefined;
  invalid?: boolean;
}

/** The page's style nonce (the middleware writes it into index.html): CodeMirror's <style> element carries it. */
const STYLE_NONCE = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '';

function attributes(label: string, describedBy: string | undefined, invalid: boolean, readOnly: boolean): Extension {
  const attrs: Record<string, string> = { 'aria-label': label, 'aria-multiline': 'true' };
  if (describedBy) attrs['aria-describedby'] = describedBy;
  if (invalid) attrs['aria-invalid'] = 'true';
  if (readOnly) attrs['aria-readonly'] = 'true';
  return [EditorView.contentAttributes.of(attrs), EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)];
}

/**
 * CodeMirror 6 with JSON syntax and its parse linter (errors underlined where they are, and in
 * the gutter). Tab is left to the browser (no indentWithTab), so keyboard users can leave the
 * editor; CodeMirror's own keymap covers editing and undo. The editor is built once: its
 * accessible attributes change through a compartment, never by rebuilding (which would drop the
 * focus and the keystrokes in flight).
 */
export function JsonEditor({ value, onChange, readOnly = false, label, describedBy, invalid = false }: JsonEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const settings = useRef(new Compartment());
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const parent = host.current;
    if (!parent) return;
    const extensions: Extension[] = [
      lineNumbers(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      highlightActiveLine(),
      syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
      keymap.of([...defaultKeymap, ...historyKeymap]),
      json(),
      lintGutter(),
      linter(jsonParseLinter(), { delay: 300 }),
      EditorView.lineWrapping,
      EditorView.cspNonce.of(STYLE_NONCE.startsWith('__') ? '' : STYLE_NONCE),
      settings.current.of(attributes(label, describedBy, invalid, readOnly)),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) changed.current?.(u.state.doc.toString());
      }),
    ];
    const v = new EditorView({ parent, state: EditorState.create({ doc: value, extensions }) });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
    // Built once per mount: `value` is only the starting text (see JsonEditorProps).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    view.current?.dispatch({ effects: settings.current.reconfigure(attributes(label, describedBy, invalid, readOnly)) });
  }, [label, describedBy, invalid, readOnly]);

  return <div class={`editor${invalid ? ' editor-invalid' : ''}`} ref={host} />;
}
