/**
 * Region ports (SILO_PORT_<REGION>), with Node's own fetch, which cannot set Host: every request
 * on a region's port is served as that region; the main port stays region `api` (or the Host's
 * region); the listeners share the connection caps and shut down with the server.
 */
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, ensureBuilt, eventually, startSilo, tempDir, type SiloServer } from '../../../test/support/silo-process.js';

beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => cleanup());

/** Connections per address; the tests' own keep-alive connections stay well below it. */
const CAP = 8;

type Regions = Record<string, { listen_port?: number }>;

function regionPort(server: SiloServer, region: string): number {
  const listening = server.logs().find((l) => l.msg === 'listening')!;
  const port = (listening.regions as Regions)[region]?.listen_port;
  if (port === undefined) throw new Error(`no listen_port for ${region} in ${JSON.stringify(listening)}`);
  return port;
}

/** Resolves true when the server closes the connection without answering within `ms`. */
function closedWithoutAnswer(socket: net.Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe('silo serve with a port per region', () => {
  const dir = tempDir('region-ports');
  let server: SiloServer;
  let keys: { manage: string; access: string };

  beforeAll(async () => {
    server = await startSilo({
      env: {
        SILO_DATA_DIR: path.join(dir, 'data'),
        SILO_LISTEN_ADDRESS: '127.0.0.1',
        SILO_PORT_API: '0',
        SILO_PORT_SG_01_API: '0',
        SILO_PORT_USC_01_API: '0',
        SILO_MAX_CONNECTIONS_PER_ADDRESS: String(CAP),
      },
      cwd: dir,
    });
    keys = server.keys!;
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('the per-address connection cap counts the connections of every port together', async () => {
    const sockets: net.Socket[] = [];
    try {
      const ports = [server.port, regionPort(server, 'api'), regionPort(server, 'sg-01-api')];
      for (let i = 0; i < CAP; i++) {
        const port = ports[i % ports.length]!;
        const s = net.connect(port, '127.0.0.1');
        await new Promise((resolve) => s.once('connect', resolve));
        sockets.push(s);
      }
      // The first CAP are kept, spread over three ports; then one more on a fourth port is one too many.
      expect(await closedWithoutAnswer(sockets[CAP - 1]!, 300)).toBe(false);
      const fourth = net.connect(regionPort(server, 'usc-01-api'), '127.0.0.1');
      sockets.push(fourth);
      expect(await closedWithoutAnswer(fourth, 2000)).toBe(true);
    } finally {
      for (const s of sockets) s.destroy();
      // The server counts them down once it has seen them close.
      await eventually(async () => (await server.fetch('/healthz').catch(() => undefined))?.ok === true, 3000);
    }
  });

  it("Node's fetch reads a silo of region sg-01-api on that region's port, and nowhere else", async () => {
    const created = await server.fetch('/api/v1/manage/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-MAN-API': keys.manage },
      body: JSON.stringify({ file_name: 'sg', file_data: { city: 'Singapore' }, region_name: 'sg-01-api' }),
    });
    expect(created.status).toBe(201);
    const { file_uuid: uuid } = (await created.json()) as { file_uuid: string };
    const read = (port: number, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${port}/${uuid}`, { headers: { 'X-SILO-KEY': keys.access, ...headers }, signal: AbortSignal.timeout(5000) });

    const sg = await read(regionPort(server, 'sg-01-api'));
    expect(sg.status).toBe(200);
    expect(await sg.json()).toEqual({ city: 'Singapore' });
    // fetch drops a Host header: on the main port this is region api, where the silo does not exist.
    expect((await read(server.port, { Host: 'sg-01-api.localhost' })).status).toBe(404);
    expect((await read(regionPort(server, 'usc-01-api'))).status).toBe(404);
    expect((await read(regionPort(server, 'api'))).status).toBe(404);
  });

  it('a Host header naming another region does not change the region of a region port', async () => {
    const created = await server.fetch('/api/v1/manage/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-MAN-API': keys.manage },
      body: JSON.stringify({ file_name: 'usc', file_data: { city: 'Iowa' }, region_name: 'usc-01-api' }),
    });
    const { file_uuid: uuid } = (await created.json()) as { file_uuid: string };
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(regionPort(server, 'usc-01-api'), '127.0.0.1');
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(`GET /${uuid} HTTP/1.1\r\nHost: sg-01-api.localhost\r\nX-SILO-KEY: ${keys.access}\r\nConnection: close\r\n\r\n`);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 200/);
    expect(raw).toContain('{"city":"Iowa"}');
  });

  it('stops cleanly on SIGTERM, region ports included', async () => {
    const sg = regionPort(server, 'sg-01-api');
    const stopped = await server.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect(sg, '127.0.0.1');
      s.once('error', () => resolve(true));
      s.once('connect', () => {
        s.destroy();
        resolve(false);
      });
    });
    expect(refused).toBe(true);
  });
});
