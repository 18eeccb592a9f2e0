/**
 * `silo export` (and `silo migrate`, which reads with it) holds a few silos' histories at a time,
 * whatever the store's size: it read every silo of a listing page (100) at once, so 10 silos of
 * 20 versions of 9 MB took it to 3.4 GiB (an attacker's finding).
 */
import Keyv from 'keyv';
import { createSilo, createStorage } from 'koa-silo';
import { expect, it } from 'vitest';
import { exportLines } from '../src/transfer/export.js';
import { plainProgress } from '../src/transfer/progress.js';

it('reads at most four silos ahead of the one it writes, on a page of many', async () => {
  const store = new Keyv();
  const silo = createSilo({ store });
  await silo.accounts.createAccount('a');
  for (let i = 0; i < 12; i++) {
    const { file_uuid: uuid } = await silo.silos.create('a', { file_name: `s${i}`, file_data: { i } });
    await silo.silos.update('a', uuid, { file_data: { i, again: true } });
  }
  const storage = createStorage({ main: store });
  let started = 0;
  const getVersions = storage.getVersions.bind(storage);
  storage.getVersions = async (...args) => {
    started++;
    return getVersions(...args);
  };

  let written = 0;
  let mostAhead = 0;
  for await (const line of exportLines(storage, plainProgress('export', () => undefined))) {
    if (!line.startsWith('{"record":"silo"')) continue;
    mostAhead = Math.max(mostAhead, started - written);
    written++;
  }
  expect(written).toBe(12);
  expect(mostAhead).toBeLessThanOrEqual(4);
  await silo.close();
});
