/**
 * Where reads and feeds go: the silo's region's URL, `baseUrl` with its first host label swapped,
 * or, when the client can tell neither, a SiloRegionError before any request (sent to `baseUrl`,
 * the read would answer a misleading 404). No server: a fetch that records what it is asked.
 */
import { describe, expect, it } from 'vitest';
import { SiloClient, SiloError, SiloRegionError, type SiloClientOptions } from '../src/index.js';
import { FIXTURE_UUID, metaText } from './support/fixtures.js';

const UUID = FIXTURE_UUID;
const CREATED = metaText({ file_name: 'far', region_name: 'sg-01-api' });

/** A client whose fetch records each URL and answers `body`. */
function recording(options: Omit<SiloClientOptions, 'fetch'>, body = '{}') {
  const urls: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    urls.push(String(input));
    return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  return { client: new SiloClient({ manageKey: 'silo_man_m', accessKey: 'silo_acc_a', ...options, fetch }), urls };
}

describe('region routing', () => {
  it('throws a SiloRegionError, before any request, for a region that baseUrl cannot be turned into', async () => {
    for (const baseUrl of ['http://localhost:8080', 'http://127.0.0.1:8080', 'https://silo.internal', 'http://api:8080']) {
      const { client, urls } = recording({ baseUrl });
      const error = await client.read(UUID, {}, { region: 'sg-01-api' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SiloRegionError);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(SiloError);
      expect(error).toMatchObject({ name: 'SiloRegionError', region: 'sg-01-api', uuid: UUID });
      expect((error as Error).message).toContain('is in region sg-01-api');
      expect((error as Error).message).toContain("regionUrls['sg-01-api']");
      expect((error as Error).message).toContain('SILO_PORT_SG_01_API');
      await expect(client.events(UUID, { region: 'usc-01-api' }).next()).rejects.toThrow(SiloRegionError);
      expect(urls).toEqual([]);
    }
  });

  it('throws it for a silo whose region the client saw in an answer', async () => {
    const { client, urls } = recording({ baseUrl: 'http://localhost:8080' }, CREATED);
    await client.create({ file_name: 'far', file_data: {}, region_name: 'sg-01-api' });
    await expect(client.read(UUID)).rejects.toMatchObject({ name: 'SiloRegionError', region: 'sg-01-api' });
    expect(urls).toEqual(['http://localhost:8080/api/v1/manage/']);
  });

  it("goes to regionUrls, to baseUrl's host with the region as its first label, or to baseUrl for the client's own region", async () => {
    const named = recording({ baseUrl: 'https://api.example.com/' });
    await named.client.read(UUID, {}, { region: 'sg-01-api' });
    await named.client.read(UUID, {}, { region: 'api' });
    expect(named.urls).toEqual([`https://sg-01-api.example.com/${UUID}`, `https://api.example.com/${UUID}`]);

    const ports = recording({ baseUrl: 'http://localhost:8080', regionUrls: { 'usc-01-api': 'http://localhost:8082/' } });
    await ports.client.read(UUID, {}, { region: 'usc-01-api' });
    await ports.client.read(UUID);
    expect(ports.urls).toEqual([`http://localhost:8082/${UUID}`, `http://localhost:8080/${UUID}`]);

    const own = recording({ baseUrl: 'http://localhost:8081', region: 'sg-01-api' });
    await own.client.read(UUID, {}, { region: 'sg-01-api' });
    expect(own.urls).toEqual([`http://localhost:8081/${UUID}`]);
    await expect(own.client.read(UUID, {}, { region: 'api' })).rejects.toThrow(/regionUrls\['api'\].*SILO_PORT_API/);
  });
});
