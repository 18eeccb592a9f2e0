import { useEffect, useState } from 'preact/hooks';
import type { JsonEditorProps } from './JsonEditor.js';

type EditorComponent = (props: JsonEditorProps) => preact.JSX.Element;

// CodeMirror is most of the bundle: it loads on the first page with an editor, once, so sign-in,
// the silo list, keys, playground and feed start without it.
let loading: Promise<EditorComponent> | undefined;
const load = () => (loading ??= import('./JsonEditor.js').then((m) => m.JsonEditor));

/** JsonEditor, loaded on first use; the same props. */
export function LazyJsonEditor(props: JsonEditorProps) {
  const [Editor, setEditor] = useState<EditorComponent | undefined>(undefined);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    load().then(
      (c) => live && setEditor(() => c),
      () => {
        loading = undefined;
        if (live) setFailed(true);
      },
    );
    return () => {
      live = false;
    };
  }, []);
  if (failed) {
    return (
      <p class="error" role="alert">
        The editor could not be loaded: reload the page to try again.
      </p>
    );
  }
  if (!Editor) return <p role="status">Loading the editor…</p>;
  return <Editor {...props} />;
}
