import { useState } from 'preact/hooks';
import { api } from '../api/endpoints.js';
import { go, useAction } from '../hooks.js';
import { checkSiloData } from '../lib/json.js';
import { href } from '../lib/routes.js';
import type { Region } from '../lib/types.js';
import { LazyJsonEditor as JsonEditor } from '../components/LazyJsonEditor.js';
import { describedBy, ErrorText, Field, RegionSelect } from '../components/ui.js';

const EXAMPLE = '[\n  {\n    "name": "Ada",\n    "age": 36\n  }\n]\n';

/** Create a silo: name, region, visibility and its JSON in the editor (checked before it is sent). */
export function NewSilo() {
  const [name, setName] = useState('');
  const [region, setRegion] = useState<Region>('api');
  const [isPublic, setIsPublic] = useState(false);
  const [text, setText] = useState(EXAMPLE);
  const [dataError, setDataError] = useState<string>();
  const action = useAction();
  const dataMessage = dataError ?? action.fields['file_data'];
  const nameMessage = action.fields['file_name'];

  const submit = (e: Event) => {
    e.preventDefault();
    const check = checkSiloData(text);
    if (!check.ok) {
      setDataError(check.message);
      action.clear();
      return;
    }
    setDataError(undefined);
    void action.run(async () => {
      const created = await api.create(name, text, region, isPublic);
      go(href({ page: 'silo', uuid: created.file_uuid }));
    });
  };

  return (
    <>
      <h1>New silo</h1>
      <form class="stack" onSubmit={submit} noValidate>
        <Field id="new-name" label="Name" error={nameMessage}>
          <input
            id="new-name"
            value={name}
            maxLength={255}
            required
            onInput={(e) => setName(e.currentTarget.value)}
            aria-invalid={nameMessage ? 'true' : undefined}
            aria-describedby={describedBy('new-name', { error: nameMessage })}
          />
        </Field>
        <Field id="new-region" label="Region">
          <RegionSelect id="new-region" value={region} onChange={setRegion} />
        </Field>
        <div class="field check">
          <input id="new-public" type="checkbox" checked={isPublic} onChange={(e) => setIsPublic(e.currentTarget.checked)} />
          <label for="new-public">Public (anyone with the address can read it)</label>
        </div>
        <div class="field">
          <span class="label" id="new-data-label">
            Data (JSON: an object, or an array of objects)
          </span>
          <JsonEditor
            value={text}
            onChange={(t) => {
              setText(t);
              if (dataError) setDataError(undefined);
            }}
            label="Silo data (JSON)"
            describedBy={dataMessage ? 'new-data-error' : undefined}
            invalid={Boolean(dataMessage)}
          />
          <ErrorText id="new-data-error" message={dataMessage} />
        </div>
        <ErrorText message={action.error} />
        <div class="row">
          <button type="submit" class="primary" disabled={action.busy}>
            Create silo
          </button>
          <a href="#/silos">Cancel</a>
        </div>
      </form>
    </>
  );
}
