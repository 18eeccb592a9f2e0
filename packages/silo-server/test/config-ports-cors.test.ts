/** SILO_PORT_<REGION> and SILO_CORS_ORIGINS: what loadConfig accepts, and the one-line errors otherwise. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, settingsHelp } from '../src/config.js';

const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'silo-config-'));
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }));

const load = (env: Record<string, string>, flags: Record<string, string | boolean> = {}) => loadConfig(env, flags, cwd);
function fails(env: Record<string, string>, pattern: RegExp): void {
  expect(() => load(env)).toThrow(ConfigError);
  expect(() => load(env)).toThrow(pattern);
}

describe('region ports', () => {
  it('are off by default; one per region by variable or flag', () => {
    expect(load({}).regionPorts).toBeUndefined();
    expect(load({ SILO_PORT_SG_01_API: '8081', SILO_PORT_API: '0' }, { 'port-usc-01-api': '8082' }).regionPorts).toEqual({
      api: 0,
      'sg-01-api': 8081,
      'usc-01-api': 8082,
    });
  });

  it('refuse a bad port, and a port already taken by PORT or another region', () => {
    fails({ SILO_PORT_SG_01_API: 'x' }, /^SILO_PORT_SG_01_API must be a port number/);
    fails({ PORT: '8081', SILO_PORT_SG_01_API: '8081' }, /^SILO_PORT_SG_01_API repeats the port of PORT: 8081/);
    fails({ SILO_PORT_API: '8083', SILO_PORT_USC_01_API: '8083' }, /^SILO_PORT_USC_01_API repeats the port of region api: 8083/);
  });
});

describe('CORS origins', () => {
  it('are none by default; a comma-separated list of origins in the form browsers send them, or *', () => {
    expect(load({}).corsOrigins).toBeUndefined();
    expect(load({ SILO_CORS_ORIGINS: 'https://App.example.com/, http://localhost:3000' }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
    ]);
    expect(load({ SILO_CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
  });

  it('refuse anything but bare http(s) origins, and * mixed with origins', () => {
    fails({ SILO_CORS_ORIGINS: 'app.example.com' }, /^SILO_CORS_ORIGINS must be comma-separated origins/);
    fails({ SILO_CORS_ORIGINS: 'https://app.example.com/path' }, /"https:\/\/app.example.com\/path"/);
    fails({ SILO_CORS_ORIGINS: '*, https://app.example.com' }, /SILO_CORS_ORIGINS/);
  });

  it('are in --help with the region ports', () => {
    expect(settingsHelp()).toMatch(/--cors-origins V\s+SILO_CORS_ORIGINS/);
    expect(settingsHelp()).toMatch(/--port-sg-01-api V\s+SILO_PORT_SG_01_API/);
  });
});
