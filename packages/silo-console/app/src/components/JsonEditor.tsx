import { useEffect, useRef } from 'preact/hooks';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, drawSelection, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { linter, lintGutter } from '@codemirror/lint';

export interface JsonEditorProps {
  /** The text to show; a new value from outside replaces the document. */
  value: string;
  onChange?: (text: string) => void;
  readOnly?: boolean;
  /** The editor's accessible name. */
  label: string;
  /** Id of the element holding the error in words, read out with the editor. */
  describedBy?: string;
  invalid?: boolean;
}

/**
 * CodeMirror 6 with JSON syntax and its parse linter (errors underlined where they are, and in
 * the gutter). Tab is left to the browser (no indentWithTab), so keyboard users can leave the
 * editor; CodeMirror's own keymap covers editing and undo.
 */
export function JsonEditor({ value, onChange, readOnly = false, label, describedBy, invalid = false }: JsonEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const parent = host.current;
    if (!parent) return;
    const attrs: Record<string, string> = { 'aria-label': label, 'aria-multiline': 'true' };
    if (describedBy) attrs['aria-describedby'] = describedBy;
    if (invalid) attrs['aria-invalid'] = 'true';
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
      EditorView.contentAttributes.of(attrs),
      EditorState.readOnly.of(readOnly),
      EditorView.editable.of(!readOnly),
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
    // The editor is rebuilt only when its configuration changes; text changes go through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [readOnly, label, describedBy, invalid]);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div class={`editor${invalid ? ' editor-invalid' : ''}`} ref={host} />;
}
